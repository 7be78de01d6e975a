// Every shell script lbdesk runs on an appliance, in one place. POSIX sh only (dash, busybox).
// Paths and values always arrive as arguments ($1…), never spliced into the code. Steps are
// merged where that is safe: each exec costs the appliance a fork and a shell. The hash
// function is the transfer layer's, which hashes the same files.
import { HASH_FN, KEEP_FN } from '../transfer/remote-posix';

/**
 * What this box has, probed once per connection (printed with the inspection): tools as
 * `cap.NAME=0|1`, the sha256 tool, and the nc flavour by its help text: `z` (OpenBSD,
 * traditional, ncat: -z), `e` (BusyBox: no -z, but -e PROG after connecting), `plain`.
 */
export const CAPS = `for t in flock setsid nohup timeout bash stat; do
  if command -v $t >/dev/null 2>&1; then echo "cap.$t=1"; else echo "cap.$t=0"; fi
done
for t in sha256sum openssl shasum; do command -v $t >/dev/null 2>&1 && { echo "cap.hash=$t"; break; }; done
if command -v nc >/dev/null 2>&1; then
  case $(nc -h </dev/null 2>&1) in *" -z"*) echo cap.nc=z ;; *"-e PROG"*) echo cap.nc=e ;; *) echo cap.nc=plain ;; esac
else echo cap.nc=none; fi
`;

/**
 * The push lock, held by a process that lives exactly as long as our SSH channel: flock on a
 * file beside the config (mkdir when flock is missing). A dropped connection closes the channel,
 * `cat` sees EOF and exits, and the lock is free again. Once held, the script in $3 runs with
 * the remaining arguments (in this shell: it must not `exit`) and its output ends with a line `END`.
 * $1 lock file, $2 holder description, $3 script, $4… its arguments.
 */
export const LOCK = `lock=$1; who=$2; after=$3; shift 3
case $lock in */*) dir=\${lock%/*}; dir=\${dir:-/} ;; *) dir=. ;; esac
[ -d "$dir" ] || { echo "ERROR the folder $dir does not exist on the appliance"; exit 1; }
# A failed redirect on exec ends sh at once: try it in a subshell first, to say why.
err=$( ( : >>"$lock" ) 2>&1 ) || { echo "ERROR cannot write $lock: \${err##*: }"; exit 1; }
if command -v flock >/dev/null 2>&1; then
  exec 9>>"$lock"
  if flock -n 9; then
    printf '%s\\n' "$who" > "$lock"
    echo LOCKED
    eval "$after"
    echo END
    exec cat >/dev/null
  fi
  echo "BUSY $(cat "$lock" 2>/dev/null)"
  exit 0
fi
d="$lock.d"
if mkdir "$d" 2>/dev/null; then
  printf '%s\\n' "$who" > "$d/owner"
  echo LOCKED
  eval "$after"
  echo END
  cat >/dev/null
  rm -rf -- "$d"
  exit 0
fi
echo "BUSY $(cat "$d/owner" 2>/dev/null) (lock directory $d; remove it if no push is running)"
`;

/**
 * The pending marker with its timer's liveness, and a fired timer's record, as `key=value`
 * lines (pending.*, fired.*); `pending` and `fired` are the script's arguments that hold them.
 */
function confirmPart(pending: string, fired: string): string {
  return `if [ -e "${pending}" ]; then
  sed 's/^/pending./' "${pending}"
  pid=$(sed -n 's/^pid=//p' "${pending}")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "pending.alive=1"; else echo "pending.alive=0"; fi
fi
[ -e "${fired}.tmp" ] && echo "fired.running=1"
[ -e "${fired}" ] && sed 's/^/fired./' "${fired}"
:
`;
}

/**
 * Under the lock: sweep stale temps, report the live file and any commit-confirmed state.
 * $1 live, $2 pending marker, $3 fired record, $4 prefix of lbdesk's files.
 */
export const INSPECT = `${HASH_FN}
n=0
for f in "$4"-tmp-*; do [ -e "$f" ] && rm -f -- "$f" && n=$((n+1)); done
echo "swept=$n"
if [ -e "$1" ]; then echo "hash=$(h "$1")"; echo "exists=1"; else echo "exists=0"; fi
${confirmPart('$2', '$3')}${CAPS}`;

/**
 * The commit-confirmed state alone, read-only (diff runs it without the push lock, so it sweeps
 * nothing). $1 pending, $2 fired.
 */
export const CONFIRM_STATE = confirmPart('$1', '$2');

/**
 * The commit-confirmed timer, run detached. $1 live, $2 backup, $3 pending, $4 fired, $5 lock,
 * $6 seconds, $7 reload command, $8 restore temp, $9 pushed hash; $10 a keeper script ('' =
 * none) and $11 its data: the runtime states lbdesk keeps, set again on the process the restore's
 * reload starts (the keeper is asked `pid` before the reload and `set DATA PID` after; its exit
 * code is the record's `keep=`). It waits for a running push to finish (same flock), and restores
 * only if the pushed file actually went live (a push cut before its rename changed nothing). The
 * marker claim (rename) is atomic against confirm's unlink.
 */
export const TIMER = `${HASH_FN}
# Without nohup (BusyBox) the timer still outlives the session's hangup.
trap '' HUP
# Stopped by confirm: take the sleep along (a kill of the process group is not always possible).
trap 'kill "$s" 2>/dev/null; exit 0' TERM
sleep "$6" </dev/null >/dev/null 2>&1 & s=$!
wait "$s" || exit 0
trap - TERM
mv -- "$3" "$4.tmp" 2>/dev/null || exit 0
exec 9>>"$5"
command -v flock >/dev/null 2>&1 && flock -w 600 9
if [ "$(h "$1")" != "$9" ]; then rm -f -- "$4.tmp"; exit 0; fi
if [ -e "$2" ]; then
  cp -p -- "$2" "$8" && mv -f -- "$8" "$1"
else
  rm -f -- "$1"
fi
rc=$?
old=
[ -n "\${10}" ] && old=$(sh -c "\${10}" lbdesk-keep pid "\${11}" 2>/dev/null 9>&-)
# 9>&-: a service the reload starts (haproxy -D) must not inherit the lock and hold it forever.
if [ "$rc" -eq 0 ]; then sh -c "$7" >"$4.out" 2>&1 9>&-; rc=$?; fi
k=
if [ "$rc" -eq 0 ] && [ -n "\${10}" ]; then sh -c "\${10}" lbdesk-keep set "\${11}" "$old" >"$4.keep" 2>&1 9>&-; k=$?; fi
{ cat "$4.tmp"; echo "firedAt=$(date +%s)"; echo "rc=$rc"; if [ -n "$k" ]; then echo "keep=$k"; fi; } > "$4.new" && mv -f -- "$4.new" "$4"
rm -f -- "$4.tmp"
`;

/**
 * Everything between upload and rename, in one exec: checksum the candidate, run the validate
 * command on it, then (unless a dry run) keep the live file as last-known-good — only if it is
 * still what we inspected — and for commit-confirmed write the pending marker and start the
 * timer detached (setsid + nohup, stdio closed) so it outlives this SSH session.
 * Our own lines start with `@lbdesk `; anything else is the validator's output.
 * $1 candidate, $2 its sha256, $3 validate command ('' = none), $4 `dry` or `commit`,
 * $5 live, $6 backup, $7 expected live hash ('' = absent), $8 backup temp; for commit-confirmed
 * also $9 pending, $10 fired, $11 lock, $12 seconds, $13 reload command, $14 restore temp,
 * $15 deadline (epoch s), $16 timer script, $17 keeper script, $18 its data (TIMER's $10, $11).
 */
export const PREPARE = `${HASH_FN}
got=$(h "$1")
[ "$got" = "$2" ] || { echo "@lbdesk CHECKSUM-MISMATCH $got"; exit 90; }
echo "@lbdesk CHECKSUM-OK"
if [ -n "$3" ]; then
  # Its messages go with its stdout, before our marker: a later failure's words stand alone.
  ( eval "$3" ) 2>&1 || { rc=$?; echo "@lbdesk VALIDATE-FAILED $rc"; exit 91; }
  echo "@lbdesk VALIDATE-OK"
fi
[ "$4" = commit ] || exit 0
cur=
[ -e "$5" ] && cur=$(h "$5")
[ "$cur" = "$7" ] || { echo "@lbdesk CHANGED $cur"; exit 93; }
bh=
if [ -e "$5" ]; then
  # A hard link keeps the old inode once the rename replaces the live name; copy where links fail.
  ln -f -- "$5" "$6" 2>/dev/null || { cp -p -- "$5" "$8" && mv -f -- "$8" "$6"; } || { rm -f -- "$8"; echo "@lbdesk BACKUP-FAILED"; exit 94; }
  bh=$cur
  echo "@lbdesk BACKUP $bh"
else
  rm -f -- "$6"
  echo "@lbdesk NOBACKUP"
fi
[ -n "$9" ] || exit 0
[ -e "$9" ] && { echo "@lbdesk PENDING"; exit 95; }
# Written through cat, which names the OS's reason (a shell's printf says only "I/O error").
err=$( { printf 'deadline=%s\\nhash=%s\\nbackupHash=%s\\n' "\${15}" "$2" "$bh" | cat > "$9.new" && mv -f -- "$9.new" "$9"; } 2>&1 ) || { rm -f -- "$9.new"; echo "@lbdesk ARM-FAILED \${err##*: }"; exit 96; }
rm -f -- "\${10}" "\${10}.out"
S=; command -v setsid >/dev/null 2>&1 && S=setsid
N=; command -v nohup >/dev/null 2>&1 && N=nohup
$S $N sh -c "\${16}" lbdesk-confirm "$5" "$6" "$9" "\${10}" "\${11}" "\${12}" "\${13}" "\${14}" "$2" "\${17}" "\${18}" </dev/null >/dev/null 2>&1 &
pid=$!
err=$( { echo "pid=$pid" | cat >> "$9"; } 2>&1 ) || {
  kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null; rm -f -- "$9"; echo "@lbdesk ARM-FAILED \${err##*: }"; exit 96; }
echo "@lbdesk PID $pid"
`;

/** Claims the pending marker (unlink) and stops the timer. $1 pending, $2 fired. */
export const DISARM = `if [ ! -e "$1" ]; then
  if [ -e "$2" ] || [ -e "$2.tmp" ]; then echo TOO-LATE; cat "$2" 2>/dev/null; else echo NONE; fi
  exit 0
fi
pid=$(sed -n 's/^pid=//p' "$1")
rm -- "$1" 2>/dev/null || { echo TOO-LATE; cat "$2" 2>/dev/null; exit 0; }
if [ -n "$pid" ]; then
  if [ ! -r "/proc/$pid/cmdline" ] || tr '\\000' ' ' < "/proc/$pid/cmdline" | grep -q lbdesk-confirm; then
    # dash's kill takes no "--"; "-TERM -PID" is the process group in dash, bash and busybox.
    kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  fi
fi
echo CONFIRMED
`;

/** Put the last-known-good copy back (atomically), or remove the live file if there was none. $1 live, $2 backup, $3 temp. */
export const RESTORE = `if [ -e "$2" ]; then
  cp -p -- "$2" "$3" && mv -f -- "$3" "$1" || { rm -f -- "$3"; exit 4; }
else
  rm -f -- "$1"
fi
`;

/**
 * Connect from the appliance to a VIP with the method the probe chose ($3): bash's /dev/tcp,
 * `nc -z`, BusyBox `nc … -e true` (connects, runs `true`, hangs up), or plain nc under
 * `timeout` (still connected when killed = it answered). Exit 2: no way to try.
 * $1 address, $2 port, $3 method.
 */
export const PROBE = `case $3 in
  bash-timeout) exec timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null ;;
  bash) exec bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null ;;
  nc-z) exec nc -z -w 3 "$1" "$2" </dev/null >/dev/null 2>&1 ;;
  nc-e) exec nc -w 3 "$1" "$2" -e true </dev/null >/dev/null 2>&1 ;;
  nc-timeout) timeout 4 nc -w 3 "$1" "$2" </dev/null >/dev/null 2>&1; rc=$?
    [ "$rc" -eq 124 ] || [ "$rc" -eq 143 ] && exit 0; exit "$rc" ;;
esac
exit 2
`;

/**
 * The live file's mode, owner and group onto a new candidate (see KEEP_FN); exit 4 when the
 * mode cannot be copied (the caller refuses rather than widen it). $1 temp, $2 live.
 */
export const KEEP_MODE = `${KEEP_FN}
keep "$1" "$2" 644; rc=$?
[ "$rc" -eq 4 ] && echo "cannot copy the mode of $2 (no stat -c, no chmod --reference)" >&2
exit "$rc"
`;

/** Upload over plain exec (no SFTP): stdin to a new file with the live file's mode, synced. $1 temp, $2 live. */
export const EXEC_UPLOAD = `umask 077
[ ! -e "$1" ] || { echo "temp file exists" >&2; exit 5; }
cat > "$1" || { rm -f -- "$1"; exit 6; }
${KEEP_FN}
keep "$1" "$2" 644; rc=$?
[ "$rc" -eq 4 ] && { echo "cannot copy the mode of $2 (no stat -c, no chmod --reference)" >&2; exit 4; }
sync -- "$1" 2>/dev/null || sync
exit "$rc"
`;

/** `become`: stdin into a new file only the login user can read, in its temp folder; prints the path. */
export const USER_UPLOAD = `umask 077
t=$(mktemp "\${TMPDIR:-/tmp}/.lbdesk-up-XXXXXX") || { echo "cannot create a temp file in \${TMPDIR:-/tmp}" >&2; exit 7; }
cat > "$t" || { rm -f -- "$t"; exit 6; }
echo "$t"
`;

/**
 * `become`, as root: the login user's upload becomes the candidate beside the live file, with
 * the live file's mode, owner and group; the user's copy goes. $1 user temp, $2 candidate, $3 live.
 */
export const INSTALL = `umask 077
[ ! -e "$2" ] || { echo "temp file exists" >&2; exit 5; }
cp -- "$1" "$2" || { rm -f -- "$2" "$1"; exit 6; }
rm -f -- "$1"
${KEEP_FN}
keep "$2" "$3" 644; rc=$?
[ "$rc" -eq 4 ] && { echo "cannot copy the mode of $3 (no stat -c, no chmod --reference)" >&2; exit 4; }
sync -- "$2" 2>/dev/null || sync
exit "$rc"
`;
