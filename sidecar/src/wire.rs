//! Message framing on the faces' byte streams: LSP's `Content-Length`
//! headers and MCP's one JSON message per line. Faces cut streams into
//! messages to follow the session (see `replay`); the bytes go on unchanged.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Which protocol a stream carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Lsp,
    Mcp,
}

/// The largest message accepted (a huge buffer, a long answer).
const MAX_MESSAGE: usize = 256 << 20;

impl Framing {
    /// The next message's body, `None` at the end of the stream. A stream
    /// that breaks the framing ends with an error.
    pub async fn read<R: AsyncBufRead + Unpin>(
        self,
        reader: &mut R,
    ) -> std::io::Result<Option<Vec<u8>>> {
        match self {
            Framing::Mcp => loop {
                let mut line = Vec::new();
                if reader.read_until(b'\n', &mut line).await? == 0 {
                    return Ok(None);
                }
                let body = line.trim_ascii();
                if !body.is_empty() {
                    return Ok(Some(body.to_vec()));
                }
            },
            Framing::Lsp => {
                let mut length: Option<usize> = None;
                let mut any = false;
                loop {
                    let mut line = Vec::new();
                    if reader.read_until(b'\n', &mut line).await? == 0 {
                        return if any {
                            Err(broken("the stream ended inside a header"))
                        } else {
                            Ok(None)
                        };
                    }
                    any = true;
                    let line = line.trim_ascii();
                    if line.is_empty() {
                        if length.is_some() {
                            break;
                        }
                        continue;
                    }
                    let text = String::from_utf8_lossy(line);
                    if let Some((name, value)) = text.split_once(':')
                        && name.trim().eq_ignore_ascii_case("content-length")
                    {
                        length = Some(
                            value
                                .trim()
                                .parse()
                                .map_err(|_| broken("a bad Content-Length"))?,
                        );
                    }
                }
                let length = length.unwrap_or(0);
                if length > MAX_MESSAGE {
                    return Err(broken("a message too large"));
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).await?;
                Ok(Some(body))
            }
        }
    }

    /// Writes one message and flushes.
    pub async fn write<W: AsyncWrite + Unpin>(
        self,
        writer: &mut W,
        body: &[u8],
    ) -> std::io::Result<()> {
        match self {
            Framing::Lsp => {
                writer
                    .write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
                    .await?;
                writer.write_all(body).await?;
            }
            Framing::Mcp => {
                writer.write_all(body).await?;
                writer.write_all(b"\n").await?;
            }
        }
        writer.flush().await
    }
}

fn broken(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(framing: Framing, bytes: &[u8]) -> std::io::Result<Vec<String>> {
        let mut reader = tokio::io::BufReader::with_capacity(3, bytes);
        let mut out = Vec::new();
        while let Some(body) = framing.read(&mut reader).await? {
            out.push(String::from_utf8(body).unwrap());
        }
        Ok(out)
    }

    #[tokio::test]
    async fn lsp_frames_split_anywhere_and_back_to_back() {
        let bytes =
            b"Content-Length: 2\r\n\r\n{}content-length:  7\r\nContent-Type: x\r\n\r\n[1,2,3]";
        assert_eq!(all(Framing::Lsp, bytes).await.unwrap(), ["{}", "[1,2,3]"]);
        let mut written = Vec::new();
        Framing::Lsp
            .write(&mut written, b"{\"a\":1}")
            .await
            .unwrap();
        assert_eq!(all(Framing::Lsp, &written).await.unwrap(), ["{\"a\":1}"]);
    }

    #[tokio::test]
    async fn broken_lsp_frames_are_errors_not_panics() {
        assert!(
            all(Framing::Lsp, b"Content-Length: x\r\n\r\n")
                .await
                .is_err()
        );
        assert!(
            all(Framing::Lsp, b"Content-Length: 10\r\n\r\n{}")
                .await
                .is_err()
        );
        assert!(all(Framing::Lsp, b"Content-Length: 2\r\n").await.is_err());
        assert!(
            all(Framing::Lsp, b"Content-Length: 99999999999\r\n\r\n")
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn mcp_lines_skip_blanks() {
        let bytes = b"{\"a\":1}\n\n  \r\n{\"b\":2}\r\n{\"c\":3}";
        assert_eq!(
            all(Framing::Mcp, bytes).await.unwrap(),
            ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]
        );
    }
}
