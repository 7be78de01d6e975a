export { loadWorkspaceFile, saveWorkspaceText, readWorkspaceText, workspaceStore, WorkspaceFileError } from './store';
export type { LoadedWorkspace, SaveResult, WorkspaceFileErrorCode } from './store';
export { loadWorkspace, validateFile, type LoadOutcome, type LoadedOk, type LoadRefused, type ValidateResult } from './load';
export { writeFileAtomic, type AtomicWriteResult } from './atomic';
