//! Paged lists: `{ items, cursor }`, the cursor absent on the last page.

use serde::{Deserialize, Serialize};

/// The page of contacts when `limit` is left out. Folders and activations default to the
/// maximum instead, so a reader that takes one page sees a whole ordinary account.
pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 200;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}
