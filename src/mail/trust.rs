//! The two codes a pbem mail carries: the position check, which catches a mail whose
//! record and position disagree, and the authentication code, which proves that the
//! sender knows the game's shared secret.
//!
//! Both are defined byte for byte here, so that another program can compute them:
//!
//! - `position_check(position)` is the first 8 lowercase hex digits (the first 4 bytes)
//!   of SHA-256 over the UTF-8 bytes of the position string exactly as given (for chess,
//!   the FEN that the game's `position_string` writes).
//! - `auth_code(secret, game_id, record)` is HMAC-SHA-256 keyed with the secret over
//!   `pbem-auth-v1`, a NUL byte, the game id, a NUL byte, and the record with its white
//!   space normalised: every run of white space (spaces, tabs, line breaks) becomes one
//!   space and white space at both ends is removed. It is written as 64 lowercase hex
//!   digits. Normalising makes the code survive a mail client that re-wraps lines or
//!   turns line endings into CRLF; it never joins two words, so it cannot make two
//!   different records equal, except for records that differ only in white space inside
//!   a comment or a tag value, which mean the same to the replay anyway.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// The first bytes of the authenticated message, naming this scheme and its version.
const AUTH_DOMAIN: &[u8] = b"pbem-auth-v1";

/// The position check of a position string: the first 8 hex digits of its SHA-256.
///
/// ```
/// use pbem::mail::position_check;
///
/// let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// assert_eq!(position_check(start).len(), 8);
/// ```
#[must_use]
pub fn position_check(position: &str) -> String {
    let digest = Sha256::digest(position.as_bytes());
    hex(&digest[..4])
}

/// The authentication code of a game's record under the game's secret: 64 hex digits of
/// HMAC-SHA-256 (see the module documentation for exactly what is hashed).
#[must_use]
pub fn auth_code(secret: &[u8], game_id: &str, record: &str) -> String {
    hex(&auth_mac(secret, game_id, record).finalize().into_bytes())
}

/// Whether `code` (hex, either case) is the authentication code of this record. The
/// comparison takes the same time wherever the first difference is.
#[must_use]
pub fn verify_auth_code(secret: &[u8], game_id: &str, record: &str, code: &str) -> bool {
    let Some(bytes) = unhex(code) else {
        return false;
    };
    auth_mac(secret, game_id, record)
        .verify_slice(&bytes)
        .is_ok()
}

/// The record with white space normalised as the authentication code hashes it.
#[must_use]
pub fn normalize_white_space(record: &str) -> String {
    let mut out = String::with_capacity(record.len());
    for word in record.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn auth_mac(secret: &[u8], game_id: &str, record: &str) -> Hmac<Sha256> {
    // HMAC takes keys of any length: long keys are hashed, short ones padded.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret)
        .expect("hmac accepts keys of every length");
    mac.update(AUTH_DOMAIN);
    mac.update(&[0]);
    mac.update(game_id.as_bytes());
    mac.update(&[0]);
    mac.update(normalize_white_space(record).as_bytes());
    mac
}

fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    hex::decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_check_is_the_start_of_sha256() {
        // SHA-256("abc") = ba7816bf 8f01cfea ... (FIPS 180-2, appendix B.1).
        assert_eq!(position_check("abc"), "ba7816bf");
    }

    #[test]
    fn auth_code_matches_rfc_4231_construction() {
        // RFC 4231 test case 2 checks the HMAC itself: key "Jefe".
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        assert_eq!(
            hex(&mac.finalize().into_bytes()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn auth_code_ignores_white_space_layout_only() {
        let record = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 *\n";
        let rewrapped = "[Event \"x\"]\r\n\r\n1. e4 e5\r\n2. Nf3 *";
        let code = auth_code(b"secret", "g-1", record);
        assert_eq!(code.len(), 64);
        assert_eq!(code, auth_code(b"secret", "g-1", rewrapped));
        assert_ne!(
            code,
            auth_code(b"secret", "g-1", "[Event \"x\"]\n\n1. e4 e5 2. Nf6 *")
        );
        assert_ne!(code, auth_code(b"secret", "g-2", record));
        assert_ne!(code, auth_code(b"other", "g-1", record));
        assert!(verify_auth_code(b"secret", "g-1", rewrapped, &code));
        assert!(verify_auth_code(
            b"secret",
            "g-1",
            record,
            &code.to_uppercase()
        ));
        assert!(!verify_auth_code(b"secret", "g-1", record, &code[..62]));
        assert!(!verify_auth_code(b"secret", "g-1", record, "zz"));
    }

    #[test]
    fn game_id_and_record_cannot_trade_bytes() {
        // The NUL separator keeps "g-1" + "x..." apart from "g-1x" + "...".
        assert_ne!(
            auth_code(b"k", "g-1", "x 1. e4"),
            auth_code(b"k", "g-1x", "1. e4")
        );
    }
}
