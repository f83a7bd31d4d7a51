//! The Folders pane: the account's folder tree with each folder's contact count, the folder
//! open in Contacts marked. Its state, the keys that move in it, and its drawing.

use std::collections::{HashMap, HashSet};

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table, Widget};

use crate::list::{ListView, Load};
use crate::widgets::View;
use svc_model::{Folder, FolderType};

/// The pane's inner width from which the folder type has a column of its own.
const FOLDER_TYPE_MIN_WIDTH: u16 = 48;

/// One line of the folder tree: the folder's index and its depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeRow {
    pub index: usize,
    pub depth: usize,
}

#[derive(Debug, Clone)]
pub struct FoldersPane {
    pub load: Load,
    pub items: Vec<Folder>,
    /// The tree in display order; the view's indices point into it.
    pub tree: Vec<TreeRow>,
    pub view: ListView,
    /// The folder shown in the contacts pane.
    pub open: Option<String>,
    /// Folders added here since the list was last set: an answer to a request made before
    /// they were lacks them ([`take_added`](Self::take_added)).
    added: Vec<String>,
}

fn folder_text(f: &Folder) -> String {
    format!("{} {}", f.name, f.folder_type.as_str())
}

/// Whether contacts can be logged into the folder: not the root, not a category.
pub fn holds_contacts(f: &Folder) -> bool {
    f.folder_type != FolderType::Category
}

impl Default for FoldersPane {
    fn default() -> Self {
        FoldersPane {
            load: Load::Loading,
            items: Vec::new(),
            tree: Vec::new(),
            view: ListView::default(),
            open: None,
            added: Vec::new(),
        }
    }
}

impl FoldersPane {
    pub fn selected(&self) -> Option<&Folder> {
        let row = self.view.selected_item()?;
        self.items.get(self.tree.get(row)?.index)
    }

    pub fn find(&self, id: &str) -> Option<&Folder> {
        self.items.iter().find(|f| f.id == id)
    }

    /// Shows the rows that pass the filter, in a viewport of `height` rows.
    pub fn refilter(&mut self, height: usize) {
        let (tree, items) = (&self.tree, &self.items);
        let texts = tree.iter().map(|r| folder_text(&items[r.index]));
        self.view.refilter(texts, height);
    }

    /// Shows `items` as the tree, keeping the selection.
    pub fn set(&mut self, items: Vec<Folder>, height: usize) {
        let selected = self.selected().map(|f| f.id.clone());
        self.items = items;
        self.tree = build_tree(&self.items);
        self.load = Load::Loaded;
        self.refilter(height);
        if let Some(id) = selected {
            self.select(&id, height);
        }
    }

    /// Selects the folder `id` when it is shown.
    pub fn select(&mut self, id: &str, height: usize) {
        let row = self.tree.iter().position(|r| self.items[r.index].id == id);
        if let Some(row) = row {
            self.view.select_item(row, height);
        }
    }

    /// A folder made with no link exists on the service now: `folder` takes the place of
    /// `local_id` (once, when the list has it already).
    pub fn resolve(&mut self, local_id: &str, folder: &Folder, height: usize) {
        let items = swap(&self.items, local_id, folder);
        if self.open.as_deref() == Some(local_id) {
            self.open = Some(folder.id.clone());
        }
        self.set(items, height);
    }

    /// Adds a folder logged here, when the tree does not have it yet.
    /// The folders added here since the list was last set, forgotten as they are given.
    pub fn take_added(&mut self) -> Vec<String> {
        std::mem::take(&mut self.added)
    }

    pub fn add(&mut self, folder: &Folder, height: usize) {
        if self.find(&folder.id).is_none() {
            self.added.push(folder.id.clone());
            let mut items = self.items.clone();
            items.push(folder.clone());
            self.set(items, height);
        }
    }

    /// The folder `id` and every container above it, which count what is below them. A
    /// cycle in damaged data ends the walk instead of looping.
    pub fn lineage(&self, id: &str) -> Vec<String> {
        let mut ids = vec![id.to_owned()];
        let mut parent = self.find(id).and_then(|f| f.parent_id.clone());
        while let Some(id) = parent.take().filter(|id| !ids.contains(id)) {
            parent = self.find(&id).and_then(|f| f.parent_id.clone());
            ids.push(id);
        }
        ids
    }
}

/// `items` with `folder` in the place of `local_id`, or without `local_id` when `folder` is
/// among them already.
pub fn swap(items: &[Folder], local_id: &str, folder: &Folder) -> Vec<Folder> {
    let known = items.iter().any(|f| f.id == folder.id);
    items
        .iter()
        .filter(|f| !(known && f.id == local_id))
        .map(|f| {
            if f.id == local_id {
                folder.clone()
            } else {
                f.clone()
            }
        })
        .collect()
}

/// The folders as a tree: children under their parent in list order; folders whose parent is
/// unknown are shown at the top level.
pub fn build_tree(items: &[Folder]) -> Vec<TreeRow> {
    let ids: HashSet<&str> = items.iter().map(|f| f.id.as_str()).collect();
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for (i, f) in items.iter().enumerate() {
        match f
            .parent_id
            .as_deref()
            .filter(|p| ids.contains(p) && *p != f.id)
        {
            Some(parent) => children.entry(parent).or_default().push(i),
            None => roots.push(i),
        }
    }
    let mut rows = Vec::with_capacity(items.len());
    let mut seen = HashSet::new();
    // Folders in a cycle of damaged data are reached from no root: they start a tree of
    // their own after the others, so every folder shows once and nothing loops.
    for start in roots.into_iter().chain(0..items.len()) {
        let mut stack = vec![(start, 0)];
        while let Some((i, depth)) = stack.pop() {
            if !seen.insert(i) {
                continue;
            }
            rows.push(TreeRow { index: i, depth });
            if let Some(kids) = children.get(items[i].id.as_str()) {
                stack.extend(kids.iter().rev().map(|k| (*k, depth + 1)));
            }
        }
    }
    rows
}

impl Widget for View<'_, FoldersPane> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let pane = self.state;
        let inner = self.frame(vec![Span::raw(" Folders ")], &pane.view, area, buf);
        if self.placeholder(
            &pane.view,
            (pane.items.is_empty(), &pane.load),
            ("Folders", "No folders."),
            inner,
            buf,
        ) {
            return;
        }
        let height = inner.height as usize;
        // The names come first: an activation's (W1AW@US-1234-20261122) tells its day only at
        // the end, so the type column shows only where both fit.
        let with_type = inner.width >= FOLDER_TYPE_MIN_WIDTH;
        let rows = pane
            .view
            .shown
            .iter()
            .enumerate()
            .skip(pane.view.offset)
            .take(height)
            .map(|(i, row)| {
                let tree = pane.tree[*row];
                let f = &pane.items[tree.index];
                let open = pane.open.as_deref() == Some(f.id.as_str());
                let name = format!(
                    "{}{}{}",
                    if open { "▶" } else { " " },
                    "  ".repeat(tree.depth),
                    f.name
                );
                let style = self.row_style(i, &pane.view);
                let mut cells = vec![Cell::from(name)];
                if with_type {
                    cells.push(Cell::from(f.folder_type.as_str()));
                }
                cells.push(Cell::from(
                    Line::from(f.contact_count.to_string()).alignment(Alignment::Right),
                ));
                Row::new(cells).style(style)
            });
        let widths = if with_type {
            vec![
                Constraint::Fill(1),
                Constraint::Length(10),
                Constraint::Length(5),
            ]
        } else {
            vec![Constraint::Fill(1), Constraint::Length(5)]
        };
        Table::new(rows, widths).render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(id: &str, parent: Option<&str>) -> Folder {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": id, "type": "category", "parentId": parent,
            "contactCount": 0, "createdAt": "2026-11-01T00:00:00Z",
        }))
        .unwrap()
    }

    #[test]
    fn damaged_trees_still_show_every_folder_once() {
        // An orphan (parent unknown) goes to the top; a cycle does not loop.
        let items = vec![
            folder("fld_a", None),
            folder("fld_b", Some("fld_gone")),
            folder("fld_c", Some("fld_d")),
            folder("fld_d", Some("fld_c")),
            folder("fld_e", Some("fld_e")),
        ];
        let tree = build_tree(&items);
        let shown: Vec<usize> = tree.iter().map(|r| r.index).collect();
        assert_eq!(shown, [0, 1, 4, 2, 3]);
        let with_root = vec![folder("fld_r", None), folder("fld_x", Some("fld_r"))];
        assert_eq!(
            build_tree(&with_root),
            [
                TreeRow { index: 0, depth: 0 },
                TreeRow { index: 1, depth: 1 }
            ]
        );
    }
}
