export { loadWorkspaceFile, saveWorkspaceText, validateFile, readWorkspaceText, workspaceStore, WorkspaceFileError } from './store';
export type { LoadedWorkspace, SaveResult, ValidateResult, WorkspaceFileErrorCode } from './store';
export { writeFileAtomic, type AtomicWriteResult } from './atomic';
