//! Minimal RESP requests the restart benchmark needs: `INFO` as fields,
//! and `SAVE`.

use std::collections::BTreeMap;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::LabError;

/// Sends one command and returns the raw reply (a simple string, error or
/// bulk string; enough for INFO and SAVE).
pub(crate) async fn call(port: u16, args: &[&str]) -> Result<String, LabError> {
    let io = |e: std::io::Error| LabError::Check(format!("RESP request on port {port}: {e}"));
    let stream = TcpStream::connect(("127.0.0.1", port)).await.map_err(io)?;
    let mut stream = BufReader::new(stream);
    let mut request = format!("*{}\r\n", args.len());
    for arg in args {
        request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
    }
    stream
        .get_mut()
        .write_all(request.as_bytes())
        .await
        .map_err(io)?;
    let mut line = String::new();
    stream.read_line(&mut line).await.map_err(io)?;
    match line.as_bytes().first() {
        Some(b'$') => {
            let len: usize = line[1..]
                .trim()
                .parse()
                .map_err(|_| LabError::Check(format!("bad bulk length in reply {line:?}")))?;
            let mut body = vec![0u8; len + 2];
            stream.read_exact(&mut body).await.map_err(io)?;
            body.truncate(len);
            Ok(String::from_utf8_lossy(&body).into_owned())
        }
        Some(b'+') => Ok(line.trim_end().to_string()),
        _ => Err(LabError::Check(format!(
            "{} answered {:?}",
            args.join(" "),
            line.trim_end()
        ))),
    }
}

/// Every `field:value` of `INFO everything`, plus `keys` from the
/// keyspace line.
pub async fn fields(port: u16) -> Result<BTreeMap<String, String>, LabError> {
    let text = call(port, &["INFO", "everything"]).await?;
    let mut fields = BTreeMap::new();
    for line in text.lines() {
        if let Some((field, value)) = line.split_once(':') {
            if field == "db0" {
                if let Some(keys) = value.split(',').find_map(|kv| kv.strip_prefix("keys=")) {
                    fields.insert("keys".to_string(), keys.to_string());
                }
            }
            fields.insert(field.to_string(), value.to_string());
        }
    }
    Ok(fields)
}

/// `SAVE`: a snapshot of everything loaded.
pub async fn save(port: u16) -> Result<(), LabError> {
    call(port, &["SAVE"]).await.map(drop)
}
