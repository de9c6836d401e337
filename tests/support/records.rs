//! Records: reading every game of a text, writing games as the export format does, and
//! the fixed-point check of the writer.

use pbem::notation::{Comment, Line, Numbering, Record, Tag, TurnNode, read_str, write_record};

/// Reads every game of `text`, panicking on the first error.
pub fn read_all(text: &str) -> Vec<Record> {
    read_str(text)
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|error| panic!("{error}"))
}

/// Writes games one after another as the export format does.
pub fn write_all(records: &[Record]) -> String {
    let mut out = String::new();
    for record in records {
        write_record(record, Numbering::from_tags(record), &mut out);
    }
    out
}

/// Writing the records of `text` and reading the output gives the same records (in
/// canonical form), and writing those again gives the same text.
pub fn assert_fixed_point(text: &str) -> Vec<Record> {
    let records = read_all(text);
    let written = write_all(&records);
    let again = read_all(&written);
    assert_eq!(
        write_all(&again),
        written,
        "the writer is not a fixed point"
    );
    assert_eq!(
        again.len(),
        records.len(),
        "games differ after writing:\n{written}"
    );
    for (again, record) in again.iter().zip(&records) {
        assert_eq!(
            again,
            &canonical(record),
            "a game differs after writing:\n{written}"
        );
    }
    records
}

/// The record the reader gives back for `record`: comments trimmed with their spaces
/// collapsed, and tags in the writer's order.
pub fn canonical(record: &Record) -> Record {
    fn collapse(text: &str) -> String {
        text.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
    }
    fn canonical_line(line: &Line) -> Line {
        Line {
            comments: line.comments.iter().map(comment).collect(),
            turns: line
                .turns
                .iter()
                .map(|turn| TurnNode {
                    token: turn.token.clone(),
                    span: turn.span,
                    number: turn.number,
                    nags: turn.nags.clone(),
                    comments: turn.comments.iter().map(comment).collect(),
                    variations: turn.variations.iter().map(canonical_line).collect(),
                })
                .collect(),
        }
    }
    fn comment(comment: &Comment) -> Comment {
        Comment {
            text: collapse(&comment.text).into(),
            span: comment.span,
        }
    }
    const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
    let mut tags: Vec<Tag> = Vec::new();
    for name in ROSTER {
        tags.extend(record.tags.iter().filter(|tag| tag.name == name).cloned());
    }
    tags.extend(
        record
            .tags
            .iter()
            .filter(|tag| !ROSTER.contains(&tag.name.as_str()))
            .cloned(),
    );
    Record {
        tags,
        moves: canonical_line(&record.moves),
        ..record.clone()
    }
}
