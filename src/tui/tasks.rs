//! The background: each [`Effect`] runs as one tokio task with a shared client and answers
//! with an [`Action`] through the channel, so the screen never waits for the network.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinSet;

use super::app::{Action, Effect, PAGE_SIZE};
use crate::client::{Client, ClientError, FULL_PAGE, NewFolderRequest};
use crate::model::Contact;

pub fn spawn(
    effect: Effect,
    client: &Arc<Client>,
    tx: &UnboundedSender<Action>,
    tasks: &mut JoinSet<()>,
) {
    let client = client.clone();
    let tx = tx.clone();
    tasks.spawn(async move {
        let action = perform(&client, effect).await;
        // The receiver is gone only when the logbook is closing.
        let _ = tx.send(action);
    });
}

/// Carries out one effect against the service.
pub async fn perform(client: &Client, effect: Effect) -> Action {
    match effect {
        Effect::LoadWhoami => Action::WhoamiLoaded(client.whoami().await),
        Effect::LoadFolders => Action::FoldersLoaded(client.all_folders(None).await),
        Effect::LoadContacts {
            folder_id,
            cursor,
            generation,
        } => {
            let result = client
                .contacts(&folder_id, Some(PAGE_SIZE), cursor.as_deref())
                .await;
            Action::ContactsLoaded {
                folder_id,
                generation,
                result,
            }
        }
        Effect::LoadActivations => Action::ActivationsLoaded(client.all_activations(false).await),
        Effect::LoadActivationContacts { folder_id } => {
            let result = all_contacts(client, &folder_id).await;
            Action::ActivationContactsLoaded { folder_id, result }
        }
        Effect::CreateContact {
            request,
            idempotency_key,
        } => Action::ContactCreated(
            client
                .create_contact_keyed(&request, &idempotency_key)
                .await,
        ),
        Effect::DeleteContact { id } => {
            let result = client.delete_contact(&id).await;
            Action::ContactDeleted { id, result }
        }
        Effect::CreateActivation(request) => {
            Action::ActivationCreated(client.create_activation(&request).await)
        }
        Effect::EndActivation { id } => {
            let result = client.end_activation(&id, None).await;
            Action::ActivationEnded { id, result }
        }
        Effect::CreateMonthly { month } => Action::MonthlyCreated(
            client
                .create_folder(&NewFolderRequest::Monthly {
                    month,
                    program_id: None,
                })
                .await,
        ),
    }
}

async fn all_contacts(client: &Client, folder_id: &str) -> Result<Vec<Contact>, ClientError> {
    let mut items = Vec::new();
    let mut cursor = None;
    loop {
        let page = client
            .contacts(folder_id, Some(FULL_PAGE), cursor.as_deref())
            .await?;
        items.extend(page.items);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(items),
        }
    }
}
