//! The screen, drawn from the state: each pane and dialog draws itself (see
//! [`components`](super::components)); this lays them out and puts the terminal's cursor
//! where text is being typed. Pure: only the rows on screen are built, so a folder of any
//! size draws in the same time.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use super::app::{App, Dialog, Pane};
use super::components::activation::ActivationView;
use super::components::contest_start::ContestView;
use super::components::entry::{self, EntryView};
use super::components::help::HelpView;
use super::components::map::MapView;
use super::components::spots::{SpotFormView, SpotsView};
use super::components::status::{MessageLine, StatusBar};
use crate::widgets::{Theme, Tone, View, layout, placeholder};
use svc_model::text::obeyed;

/// Draws the whole screen, and puts the terminal's cursor where text is being typed.
pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let theme = Theme {
        color: app.options.color,
    };
    let areas = layout(area, app.message_rows(area.width));
    // While a dialog is open it has the keys, and no pane shows focus.
    let focus = app.dialog.is_none().then_some(app.focus);
    if app.map {
        draw_map(app, frame, area, theme);
    } else {
        draw_panes(app, frame, area, theme, focus);
    }
    frame.render_widget(
        MessageLine {
            status: app.status.as_ref(),
            now: app.now,
            theme,
        },
        areas.message,
    );
    frame.render_widget(
        StatusBar {
            label: app.options.label.as_deref(),
            me: app.me.as_ref(),
            me_load: &app.me_load,
            now: app.now,
            connection: &app.connection,
            counts: app.outbox.counts,
            rig: app.rig_label(),
            wsjtx: app.wsjtx_label(),
            contest: app
                .entry
                .as_ref()
                .and_then(|f| f.contest.as_ref())
                .map(|c| c.status()),
            in_flight: app.in_flight,
            theme,
        },
        areas.bar,
    );
    if let Some(position) = cursor(app, area) {
        frame.set_cursor_position(position);
    }
    if let Some(view) = entry_view(app, theme) {
        let at = view.area(areas.top, area);
        frame.render_widget(view, at);
    }
    match &app.dialog {
        Some(Dialog::Contest(form)) => {
            frame.render_widget(ContestView { form, theme }, ContestView::area(area));
        }
        Some(Dialog::Activation(form)) => {
            frame.render_widget(ActivationView { form, theme }, ActivationView::area(area));
        }
        Some(Dialog::Prompt(prompt)) => {
            prompt.render(app.now.utc_month(), theme, area, frame.buffer_mut());
        }
        Some(Dialog::Help) => frame.render_widget(HelpView { theme }, HelpView::area(area)),
        Some(Dialog::Spots(list)) => {
            frame.render_widget(SpotsView { list, theme }, SpotsView::area(area));
        }
        Some(Dialog::Spot(form)) => {
            frame.render_widget(SpotFormView { form, theme }, SpotFormView::area(area));
        }
        None | Some(Dialog::Entry | Dialog::Fix(_) | Dialog::Edit(_)) => {}
    }
    obey_nothing(frame.buffer_mut());
}

/// The entry form as the open dialog shows it: a contact being logged, a refused one being
/// fixed, or a stored one being edited; none while another dialog or none is open.
fn entry_view(app: &App, theme: Theme) -> Option<EntryView<'_>> {
    Some(match &app.dialog {
        Some(Dialog::Entry) => {
            let form = app.entry.as_ref()?;
            EntryView {
                form,
                valid: app.activations.meter(&form.folder_id),
                refusal: None,
                editing: false,
                theme,
            }
        }
        Some(Dialog::Fix(fix)) => EntryView {
            form: &fix.form,
            valid: app.activations.meter(&fix.form.folder_id),
            refusal: Some(&fix.refusal),
            editing: false,
            theme,
        },
        Some(Dialog::Edit(edit)) => EntryView {
            form: &edit.form,
            valid: None,
            refusal: None,
            editing: true,
            theme,
        },
        _ => return None,
    })
}

/// The three panes, and in place of an empty Contacts why nothing can be logged yet.
fn draw_panes(app: &App, frame: &mut Frame, area: Rect, theme: Theme, focus: Option<Pane>) {
    let areas = layout(area, app.message_rows(area.width));
    frame.render_widget(
        View {
            state: &app.folders,
            focused: focus == Some(Pane::Folders),
            theme,
        },
        areas.folders,
    );
    frame.render_widget(
        View {
            state: &app.activations,
            focused: focus == Some(Pane::Activations),
            theme,
        },
        areas.activations,
    );
    frame.render_widget(
        View {
            state: &app.contacts,
            focused: focus == Some(Pane::Contacts),
            theme,
        },
        areas.contacts,
    );
    if app.contacts.folder.is_none()
        && app.contacts.items.is_empty()
        && let Some(why) = app.journal.cannot_log()
    {
        // In place of "no folder open": there is nothing to open yet, and this says why.
        let inner = Block::new().borders(Borders::ALL).inner(areas.contacts);
        Clear.render(inner, frame.buffer_mut());
        placeholder(inner, frame.buffer_mut(), &why, theme.tone(Tone::Warning));
    }
}

/// The map in the panes' place, below the entry form while it is open.
fn draw_map(app: &App, frame: &mut Frame, area: Rect, theme: Theme) {
    let areas = layout(area, app.message_rows(area.width));
    let panes = areas.top.union(areas.contacts);
    let form = entry_view(app, theme).map(|view| view.area(areas.top, area));
    frame.render_widget(app.map_view(theme), MapView::area(panes, form));
}

/// Takes out of the drawn screen every character a terminal would obey rather than show (a
/// server's U+202E reversing the rest of a row, a C1 control starting an escape sequence).
/// They have no width, so each rides in the cell before it; the cells keep their places.
fn obey_nothing(buf: &mut Buffer) {
    for cell in buf.content.iter_mut() {
        if cell.symbol().chars().any(obeyed) {
            let kept: String = cell.symbol().chars().filter(|c| !obeyed(*c)).collect();
            cell.set_symbol(if kept.is_empty() { " " } else { &kept });
        }
    }
}

/// Where the terminal's cursor belongs: in the field or filter being typed, else hidden.
pub fn cursor(app: &App, area: Rect) -> Option<Position> {
    let areas = layout(area, app.message_rows(area.width));
    match &app.dialog {
        Some(Dialog::Entry) => Some(entry::cursor(app.entry.as_ref()?, areas.top, area)),
        Some(Dialog::Fix(fix)) => Some(entry::cursor(&fix.form, areas.top, area)),
        Some(Dialog::Edit(edit)) => Some(entry::cursor(&edit.form, areas.top, area)),
        Some(Dialog::Activation(form)) => Some(form.cursor(area)),
        Some(Dialog::Contest(form)) => Some(form.cursor(area)),
        Some(Dialog::Spot(form)) => Some(form.cursor(area)),
        Some(_) => None,
        None => {
            let (view, pane_area, title) = match app.focus {
                Pane::Folders => (&app.folders.view, areas.folders, " Folders ".len()),
                Pane::Activations => (
                    &app.activations.view,
                    areas.activations,
                    " Activations ".len(),
                ),
                Pane::Contacts => (&app.contacts.view, areas.contacts, app.contacts.title_len()),
            };
            let input = view.filter_input.as_ref()?;
            let x = pane_area.x as usize + 1 + title + 1 + input.visual_cursor();
            let max = pane_area.right().saturating_sub(2) as usize;
            Some(Position::new(x.min(max) as u16, pane_area.y))
        }
    }
}
