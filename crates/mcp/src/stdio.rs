//! stdin and stdout for the MCP session, each line read checked before rmcp sees it. rmcp
//! passes over a line that is not JSON without a word, so a client that sent one (bytes that
//! are not UTF-8, nesting deeper than a parser goes, a line of megabytes) would wait for ever
//! for its answer; here each such line is answered with JSON-RPC's Parse error (-32700, id
//! null), and the session goes on.

use serde_json::json;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::io::{DuplexStream, duplex};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest line read: the largest request an agent sends (a contact with every field) is a
/// few kilobytes, and a longer line is not held in memory whole.
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// JSON-RPC's code for a message that is not JSON.
const PARSE_ERROR: i64 = -32700;

/// What a pipe between this and rmcp buffers.
const PIPE_BYTES: usize = 64 << 10;

/// The ends rmcp reads and writes, and the task that writes its lines and the Parse errors to
/// `output`, which ends once rmcp's output has: await it before exiting, so that the last
/// answers are written.
pub fn guarded<R, W>(input: R, output: W) -> (DuplexStream, DuplexStream, JoinHandle<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_rmcp, rmcp_reads) = duplex(PIPE_BYTES);
    let (rmcp_writes, from_rmcp) = duplex(PIPE_BYTES);
    // A few answers wait at most: a client that sends bad lines without reading the answers
    // is not read on.
    let (answers, answered) = mpsc::channel(16);
    tokio::spawn(check_lines(BufReader::new(input), to_rmcp, answers));
    let writer = tokio::spawn(write_lines(from_rmcp, answered, output));
    (rmcp_reads, rmcp_writes, writer)
}

/// One line of the input, read without holding more than [`MAX_LINE_BYTES`] of it.
enum Line {
    /// The line, its newline included when it had one.
    Whole,
    /// Longer than [`MAX_LINE_BYTES`]; skipped to its end.
    TooLong,
    End,
}

async fn read_line(input: &mut (impl AsyncBufRead + Unpin), line: &mut Vec<u8>) -> Line {
    line.clear();
    let mut too_long = false;
    loop {
        let Ok(available) = input.fill_buf().await else {
            return Line::End;
        };
        if available.is_empty() {
            return match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                // A last line without its newline is still a message.
                (false, false) => Line::Whole,
            };
        }
        let (take, ends) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if !too_long && line.len() + take > MAX_LINE_BYTES + 1 {
            too_long = true;
            line.clear();
            line.shrink_to_fit();
        }
        if !too_long {
            line.extend_from_slice(&available[..take]);
        }
        input.consume(take);
        if ends {
            return if too_long { Line::TooLong } else { Line::Whole };
        }
    }
}

/// Why `line` is no JSON-RPC message, if it is not one.
fn parse_problem(line: &[u8]) -> Option<String> {
    // rmcp takes a line with a byte-order mark, and ignores a blank one.
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(e) => {
            return Some(format!(
                "Parse error: the line is not UTF-8 (byte {} is not); send each message as one line of UTF-8 JSON",
                e.valid_up_to() + 1
            ));
        }
    };
    // serde_json refuses nesting deeper than 128, before it could exhaust the stack.
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(_) => None,
        Err(e) => Some(format!(
            "Parse error: the line is not JSON ({e}); send each message as one line of JSON"
        )),
    }
}

fn parse_error(message: &str) -> Vec<u8> {
    let mut line = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": PARSE_ERROR, "message": message},
    })
    .to_string()
    .into_bytes();
    line.push(b'\n');
    line
}

/// Hands rmcp each line that is JSON, and answers each other one, until the input ends (then
/// rmcp's input ends too).
async fn check_lines(
    mut input: impl AsyncBufRead + Unpin,
    mut to_rmcp: DuplexStream,
    answers: mpsc::Sender<Vec<u8>>,
) {
    let mut line = Vec::new();
    loop {
        let problem = match read_line(&mut input, &mut line).await {
            Line::End => return,
            Line::TooLong => Some(format!(
                "Parse error: the line is longer than {} MiB; send smaller messages",
                MAX_LINE_BYTES >> 20
            )),
            Line::Whole if line.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Whole => parse_problem(&line),
        };
        match problem {
            Some(message) => {
                if answers.send(parse_error(&message)).await.is_err() {
                    return;
                }
            }
            None => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if to_rmcp.write_all(&line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes rmcp's lines and the Parse errors to `output`, each line whole, until rmcp's output
/// ends.
async fn write_lines(
    from_rmcp: DuplexStream,
    mut answered: mpsc::Receiver<Vec<u8>>,
    mut output: impl AsyncWrite + Unpin,
) {
    async fn write(output: &mut (impl AsyncWrite + Unpin), line: &[u8]) -> bool {
        output.write_all(line).await.is_ok() && output.flush().await.is_ok()
    }
    let mut from_rmcp = BufReader::new(from_rmcp);
    // read_until keeps what it read in `line` when the other branch wins, and goes on from it.
    let mut line = Vec::new();
    loop {
        tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line) => {
                if !matches!(read, Ok(n) if n > 0) {
                    break;
                }
                if !write(&mut output, &line).await {
                    return;
                }
                line.clear();
            }
            Some(answer) = answered.recv() => {
                if !write(&mut output, &answer).await {
                    return;
                }
            }
        }
    }
    // Lines answered as rmcp stopped are answered still.
    while let Ok(answer) = answered.try_recv() {
        if !write(&mut output, &answer).await {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_are_not_json_are_named() {
        assert_eq!(
            parse_problem(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            None
        );
        assert_eq!(parse_problem(b"\xef\xbb\xbf{}\r\n"), None);
        let bad = parse_problem(b"{\"a\":\"\xff\"}").unwrap();
        assert!(bad.contains("not UTF-8 (byte 7"), "{bad}");
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let bad = parse_problem(deep.as_bytes()).unwrap();
        assert!(bad.contains("recursion limit"), "{bad}");
        assert!(parse_problem(b"{\"a\":").is_some());
    }

    #[test]
    fn long_lines_are_skipped_whole() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut input = Vec::new();
            input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
            input.extend_from_slice(b"\n{}\n[]");
            let mut input = BufReader::with_capacity(1024, &input[..]);
            let mut line = Vec::new();
            assert!(matches!(
                read_line(&mut input, &mut line).await,
                Line::TooLong
            ));
            assert!(matches!(
                read_line(&mut input, &mut line).await,
                Line::Whole
            ));
            assert_eq!(line, b"{}\n");
            assert!(matches!(
                read_line(&mut input, &mut line).await,
                Line::Whole
            ));
            assert_eq!(line, b"[]");
            assert!(matches!(read_line(&mut input, &mut line).await, Line::End));
        });
    }
}
