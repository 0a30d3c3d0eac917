//! `strata checkpoint`: asks a running server for a checkpoint over RESP
//! (`SAVE`, or `BGSAVE` with `--background`) and prints the outcome and
//! `LASTSAVE`.

use std::io::{BufRead, BufReader, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

/// Options of `strata checkpoint`.
#[derive(Debug, Clone, clap::Args)]
pub struct CheckpointArgs {
    /// Server address.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub host: IpAddr,
    /// The server's RESP port.
    #[arg(long, default_value_t = 6379)]
    pub port: u16,
    /// Password, if the server requires one.
    #[arg(long)]
    pub password: Option<String>,
    /// Start the checkpoint and return at once (BGSAVE) instead of waiting
    /// until it is durable (SAVE).
    #[arg(long)]
    pub background: bool,
}

/// Runs the command; the error is a message for the user.
pub fn run_checkpoint(args: &CheckpointArgs) -> Result<(), String> {
    let addr = SocketAddr::new(args.host, args.port);
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    let mut conn = Conn {
        reader: BufReader::new(stream.try_clone().map_err(|e| e.to_string())?),
        writer: stream,
    };
    if let Some(password) = &args.password {
        conn.call(&["AUTH", password])?;
    }
    let reply = conn.call(&[if args.background { "BGSAVE" } else { "SAVE" }])?;
    let last = conn.call(&["LASTSAVE"])?;
    println!("{reply} (last save at unix time {last})");
    Ok(())
}

struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    /// Sends one command and returns its simple or integer reply; an error
    /// reply becomes `Err` with the server's text.
    fn call(&mut self, words: &[&str]) -> Result<String, String> {
        let mut request = format!("*{}\r\n", words.len());
        for word in words {
            request.push_str(&format!("${}\r\n{word}\r\n", word.len()));
        }
        self.writer
            .write_all(request.as_bytes())
            .map_err(|e| format!("send {}: {e}", words[0]))?;
        let mut line = String::new();
        self.reader
            .read_line(&mut line)
            .map_err(|e| format!("read the reply to {}: {e}", words[0]))?;
        let line = line.trim_end();
        match line.split_at_checked(1) {
            Some(("+" | ":", text)) => Ok(text.to_owned()),
            Some(("-", text)) => Err(format!("{} failed: {text}", words[0])),
            _ => Err(format!("unexpected reply to {}: {line:?}", words[0])),
        }
    }
}
