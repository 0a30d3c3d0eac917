//! Error texts and the engine's errors as Redis words them.

use super::*;

#[test]
fn unknown_command_text() {
    let args: [&[u8]; 2] = [b"bar", b"baz"];
    let err = RespError::unknown_command(b"foo", args.into_iter());
    assert_eq!(
        err.to_string(),
        "ERR unknown command 'foo', with args beginning with: 'bar' 'baz' "
    );
    let err = RespError::unknown_command(b"foo", std::iter::empty());
    assert_eq!(
        err.to_string(),
        "ERR unknown command 'foo', with args beginning with: "
    );
}

#[test]
fn engine_errors() {
    assert_eq!(
        RespError::from(KvError::OutOfMemory).to_string(),
        "OOM command not allowed when used memory > 'maxmemory'."
    );
    assert!(RespError::from(KvError::TooLarge { size: 10, limit: 5 })
        .to_string()
        .starts_with("ERR string exceeds maximum allowed size"));
}

#[test]
fn subcommand_and_arity() {
    assert_eq!(
        RespError::unknown_subcommand("client", b"foo").to_string(),
        "ERR unknown subcommand 'foo'. Try CLIENT HELP."
    );
    assert_eq!(
        RespError::WrongArity("client|setname".into()).to_string(),
        "ERR wrong number of arguments for 'client|setname' command"
    );
}

#[test]
fn sort_and_lcs_texts() {
    let text = |e: SortError| RespError::from(e).to_string();
    assert_eq!(
        text(SortError::NotDouble),
        "ERR One or more scores can't be converted into double"
    );
    assert_eq!(
        text(SortError::LcsOverBulkLimit),
        "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
    );
}
