//! A stand-in for Hamlib's rigctld on a free loopback port, with a radio in memory. It speaks
//! the protocol as rigctld does: `f`, `m`, `F <Hz>` and `M <MODE> <passband>`, answered in the
//! plain form, or in the extended form when the command starts with `+`. The test turns the
//! knob ([`Rigctld::tune`], [`Rigctld::set_mode`]) and makes it misbehave: answer slowly,
//! drop every connection and refuse new ones, speak the plain form only (a `+` command gets
//! `RPRT 1`, as from a daemon that has no extended form), add a VFO line to each answer, or
//! have the radio switched off (`RPRT -20` to everything).
//! Every set command it is sent is recorded.
//!
//! benches/tui.rs includes this file too, and uses only part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Radio {
    hz: u64,
    mode: String,
    passband: i64,
    /// How long each answer waits.
    delay: Duration,
    /// Connections are closed as they come.
    down: bool,
    plain_only: bool,
    vfo_line: bool,
    on: bool,
    sets: Vec<String>,
    open: Vec<TcpStream>,
    /// When a frequency was first given in an answer.
    served: Vec<(u64, Instant)>,
}

pub struct Rigctld {
    pub addr: SocketAddr,
    radio: Arc<Mutex<Radio>>,
}

impl Rigctld {
    /// A daemon whose radio is on `hz` in `mode` (a Hamlib name: USB, PKTUSB, CW…).
    pub fn start(hz: u64, mode: &str) -> Rigctld {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the rigctld stand-in");
        let addr = listener.local_addr().unwrap();
        let radio = Arc::new(Mutex::new(Radio {
            hz,
            mode: mode.to_owned(),
            passband: 2400,
            delay: Duration::ZERO,
            down: false,
            plain_only: false,
            vfo_line: false,
            on: true,
            sets: Vec::new(),
            open: Vec::new(),
            served: Vec::new(),
        }));
        let shared = radio.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut radio = shared.lock().unwrap();
                if radio.down {
                    let _ = stream.shutdown(Shutdown::Both);
                    continue;
                }
                if let Ok(clone) = stream.try_clone() {
                    radio.open.push(clone);
                }
                drop(radio);
                let radio = shared.clone();
                std::thread::spawn(move || serve(stream, radio));
            }
        });
        Rigctld { addr, radio }
    }

    /// `HOST:PORT`, as `--rig` takes it.
    pub fn address(&self) -> String {
        self.addr.to_string()
    }

    fn radio(&self) -> std::sync::MutexGuard<'_, Radio> {
        self.radio.lock().unwrap()
    }

    /// Turns the knob.
    pub fn tune(&self, hz: u64) {
        self.radio().hz = hz;
    }

    pub fn set_mode(&self, mode: &str) {
        self.radio().mode = mode.to_owned();
    }

    /// What the radio is on now.
    pub fn reading(&self) -> (u64, String) {
        let radio = self.radio();
        (radio.hz, radio.mode.clone())
    }

    /// Every answer waits `delay` from now on.
    pub fn slow(&self, delay: Duration) {
        self.radio().delay = delay;
    }

    /// Drops every connection and closes new ones, as a daemon that went away.
    pub fn go_down(&self) {
        let mut radio = self.radio();
        radio.down = true;
        for stream in radio.open.drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    pub fn come_back(&self) {
        self.radio().down = false;
    }

    pub fn plain_only(&self, on: bool) {
        self.radio().plain_only = on;
    }

    pub fn vfo_line(&self, on: bool) {
        self.radio().vfo_line = on;
    }

    /// Switches the radio on or off; rigctld stays up.
    pub fn power(&self, on: bool) {
        self.radio().on = on;
    }

    /// The set commands received, as sent (`F 14074000`, `M USB 0`).
    pub fn sets(&self) -> Vec<String> {
        self.radio().sets.clone()
    }

    /// When an answer first gave `hz`.
    pub fn served_at(&self, hz: u64) -> Option<Instant> {
        self.radio()
            .served
            .iter()
            .find(|(h, _)| *h == hz)
            .map(|(_, t)| *t)
    }
}

/// The answer to one command line.
fn answer(radio: &mut Radio, line: &str) -> String {
    let (extended, command) = match line.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    if extended && radio.plain_only {
        return "RPRT 1\n".into();
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    let name = match words.first() {
        Some(&"f") => "get_freq",
        Some(&"m") => "get_mode",
        Some(&"F") => "set_freq",
        Some(&"M") => "set_mode",
        _ => command,
    };
    // rigctld's extended header echoes the command's long name and its arguments.
    let header = match words.get(1..) {
        Some(args) if !args.is_empty() => format!("{name}: {}", args.join(" ")),
        _ => format!("{name}:"),
    };
    if !radio.on {
        return reply(extended, false, &header, &[], -20);
    }
    let vfo = radio.vfo_line;
    match words.as_slice() {
        ["f"] => reply(
            extended,
            vfo,
            &header,
            &[("Frequency", radio.hz.to_string())],
            0,
        ),
        ["m"] => reply(
            extended,
            vfo,
            &header,
            &[
                ("Mode", radio.mode.clone()),
                ("Passband", radio.passband.to_string()),
            ],
            0,
        ),
        ["F", hz] => {
            radio.sets.push(format!("F {hz}"));
            match hz.parse::<u64>() {
                Ok(hz) => {
                    radio.hz = hz;
                    reply(extended, vfo, &header, &[], 0)
                }
                Err(_) => reply(extended, vfo, &header, &[], -1),
            }
        }
        ["M", mode, passband] => {
            radio.sets.push(format!("M {mode} {passband}"));
            radio.mode = (*mode).to_owned();
            reply(extended, vfo, &header, &[], 0)
        }
        _ => reply(extended, vfo, &header, &[], -11),
    }
}

/// An answer in the extended form (header, `Key: value` lines, `RPRT`) or the plain one (the
/// values alone, or `RPRT` alone when there are none or on an error).
fn reply(extended: bool, vfo: bool, header: &str, values: &[(&str, String)], code: i32) -> String {
    let mut out = String::new();
    if extended {
        out.push_str(header);
        out.push('\n');
        if vfo && !values.is_empty() {
            out.push_str("VFO: VFOA\n");
        }
        for (key, value) in values {
            out.push_str(&format!("{key}: {value}\n"));
        }
        out.push_str(&format!("RPRT {code}\n"));
    } else if values.is_empty() || code != 0 {
        out.push_str(&format!("RPRT {code}\n"));
    } else {
        for (_, value) in values {
            out.push_str(value);
            out.push('\n');
        }
        // After the values, as Hamlib 4.0 had it: a line the next answer must skip.
        if vfo {
            out.push_str("VFOA\n");
        }
    }
    out
}

fn serve(stream: TcpStream, radio: Arc<Mutex<Radio>>) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let delay = radio.lock().unwrap().delay;
        std::thread::sleep(delay);
        let mut state = radio.lock().unwrap();
        if state.down {
            return;
        }
        let text = answer(&mut state, line.trim());
        let hz = state.hz;
        drop(state);
        if writer.write_all(text.as_bytes()).is_err() {
            return;
        }
        if line.trim().trim_start_matches('+') == "f" {
            let mut state = radio.lock().unwrap();
            if !state.served.iter().any(|(h, _)| *h == hz) {
                state.served.push((hz, Instant::now()));
            }
        }
    }
}
