// Windowing for long lists: only the rows in view (plus a margin) exist in the DOM, so 10,000
// servers scroll as smoothly as 10.
import { computed, onBeforeUnmount, onMounted, ref, type Ref } from 'vue';

export function useVirtual(viewport: Ref<HTMLElement | undefined>, count: () => number, rowHeight: number, overscan = 8) {
  const scrollTop = ref(0);
  const height = ref(600);
  let frame = 0;
  let observer: ResizeObserver | undefined;

  const onScroll = () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      scrollTop.value = viewport.value?.scrollTop ?? 0;
    });
  };
  onMounted(() => {
    const el = viewport.value;
    if (!el) return;
    height.value = el.clientHeight || height.value;
    el.addEventListener('scroll', onScroll, { passive: true });
    if (typeof ResizeObserver !== 'undefined') {
      observer = new ResizeObserver(() => (height.value = el.clientHeight || height.value));
      observer.observe(el);
    }
  });
  onBeforeUnmount(() => {
    viewport.value?.removeEventListener('scroll', onScroll);
    observer?.disconnect();
    if (frame) cancelAnimationFrame(frame);
  });

  const range = computed(() => {
    const n = count();
    const first = Math.max(0, Math.floor(scrollTop.value / rowHeight) - overscan);
    const last = Math.min(n, Math.ceil((scrollTop.value + height.value) / rowHeight) + overscan);
    return { first, last };
  });
  const total = computed(() => count() * rowHeight);

  /** Scrolls the least needed to show row i. */
  function reveal(i: number): void {
    const el = viewport.value;
    if (!el) return;
    const top = i * rowHeight;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight;
    scrollTop.value = el.scrollTop;
  }

  return { range, total, reveal, height, scrollTop };
}
