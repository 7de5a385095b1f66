// The failure categories live in src/core/failure-category.ts (the backend layer reads them too).
export {
  classifyFailure,
  categoryFromReason,
  categoryFromText,
  isBalanceText,
  reasonForCategory,
  QUOTA_REASONS,
  type FailureFacts,
} from '../failure-category';
