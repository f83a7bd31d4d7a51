//! --broadcast-adif: each contact the logbook logs (typed or WSJT-X's), once it is in the
//! journal, goes as one ADIF record in one UDP datagram to each address, as `svc listen`
//! sends them, for GridTracker and the like.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};

use tokio::net::UdpSocket;

use svc_client::journal::Entry;
use svc_model::ContactInput;

/// The addresses, and a socket for each family among them.
#[derive(Debug)]
pub struct Broadcast {
    to: Vec<SocketAddr>,
    v4: Option<UdpSocket>,
    v6: Option<UdpSocket>,
}

impl Broadcast {
    /// Sockets on any free port, one for each family `to` has; why not, when none can be had.
    pub async fn bind(to: Vec<SocketAddr>) -> Result<Broadcast, String> {
        let bind = |unspecified: SocketAddr| async move {
            UdpSocket::bind(unspecified)
                .await
                .map_err(|e| format!("cannot open a UDP socket for --broadcast-adif: {e}"))
        };
        let v4 = if to.iter().any(SocketAddr::is_ipv4) {
            Some(bind((Ipv4Addr::UNSPECIFIED, 0).into()).await?)
        } else {
            None
        };
        let v6 = if to.iter().any(SocketAddr::is_ipv6) {
            Some(bind((Ipv6Addr::UNSPECIFIED, 0).into()).await?)
        } else {
            None
        };
        Ok(Broadcast { to, v4, v6 })
    }

    /// `contact`, logged as `entry`, as the service will store it; `account` is the
    /// STATION_CALLSIGN where the contact names none.
    pub async fn send(&self, contact: &ContactInput, entry: &Entry, account: &str) {
        if self.to.is_empty() {
            return;
        }
        let Some(text) = svc_adif::logged_record_text(contact, &entry.id, account) else {
            return;
        };
        for to in &self.to {
            let socket = match to {
                SocketAddr::V4(_) => &self.v4,
                SocketAddr::V6(_) => &self.v6,
            };
            // UDP: a listener that is not there loses the record, never the contact.
            if let Some(socket) = socket {
                let _ = socket.send_to(text.as_bytes(), to).await;
            }
        }
    }
}
