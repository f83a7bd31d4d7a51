//! A stand-in's HTTP server: an axum router served on a free loopback port from a thread and
//! runtime of its own, stopped (every connection, a stalled one included) when dropped.

use std::net::SocketAddr;

use axum::Router;
use tokio::net::TcpListener;

pub struct Served {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Served {
    /// Serves `app`; `what` names the stand-in in a failure to start.
    pub fn start(app: Router, what: &'static str) -> Served {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap_or_else(|e| panic!("a runtime for {what}: {e}"));
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0")
                    .await
                    .unwrap_or_else(|e| panic!("bind {what}: {e}"));
                addr_tx
                    .send(listener.local_addr().expect("its address"))
                    .expect("the test waits for the address");
                tokio::select! {
                    _ = std::future::IntoFuture::into_future(axum::serve(listener, app)) => {}
                    _ = stopped => {}
                }
            });
            // The runtime goes here, and with it every connection, a stalled one included.
        });
        let addr = addr_rx
            .recv()
            .unwrap_or_else(|_| panic!("{what} did not start"));
        Served {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
