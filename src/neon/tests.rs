//! Unit tests of the decoder: values, spans, errors with positions, depth limits.

use super::*;
use crate::source::SourceMap;

fn dec(s: &str) -> Result<Value, Diagnostic> {
    decode(s, FileId(0))
}

fn json(s: &str) -> String {
    match dec(s) {
        Ok(v) => serde_json::to_string(&to_json(&v)).unwrap(),
        Err(d) => panic!("{s:?}: {}", d.message),
    }
}

/// (message, line, byte column) of the error for `s`.
fn error(s: &str) -> (String, usize, usize) {
    let mut sm = SourceMap::new();
    let f = sm.add("t.neon", s);
    let d = decode(s, f).expect_err(s);
    let span = d.primary_span().expect("positioned");
    let (l, c) = sm.get(f).line_col(span.start as usize);
    (d.message, l, c)
}

#[test]
fn block_and_inline() {
    assert_eq!(
        json("a: 1\nb:\n  - x\n  - y: [1, {c: d}]"),
        r#"{"a":1,"b":["x",{"y":[1,{"c":"d"}]}]}"#
    );
    assert_eq!(json("- a: 1\n  b: 2"), r#"[{"a":1,"b":2}]"#);
    assert_eq!(json("- a: 1\n\tb: 2"), r#"[{"a":1,"b":2}]"#);
    assert_eq!(
        json("Foo(a, b: 1)::bar"),
        r#"{"$chain":[{"$entity":"Foo","attributes":{"0":"a","b":1}},{"$entity":"::bar","attributes":[]}]}"#
    );
    assert_eq!(json(""), "null");
    assert_eq!(json("a:\n- 1\n- 2\nb: x"), r#"{"a":[1,2],"b":"x"}"#);
}

#[test]
fn spans_point_at_source() {
    let src = "a:\n  b: [1, 'two']\n";
    let v = dec(src).unwrap();
    let a = v.as_array().unwrap();
    let inner = a.get("a").unwrap().as_array().unwrap();
    let b = inner.get_entry(&Key::Str("b".into())).unwrap();
    assert_eq!(&src[b.key_span.range()], "b");
    assert_eq!(&src[b.value.span.range()], "[1, 'two']");
    let two = b.value.as_array().unwrap().values().nth(1).unwrap();
    assert_eq!(&src[two.span.range()], "'two'");
}

#[test]
fn spans_count_bom_and_cr() {
    let bytes = b"\xEF\xBB\xBFa: x\r\nb: yes\r\n";
    let v = decode_bytes(bytes, FileId(0)).unwrap();
    let b = v
        .as_array()
        .unwrap()
        .get_entry(&Key::Str("b".into()))
        .unwrap();
    assert_eq!(&bytes[b.key_span.range()], b"b");
    assert_eq!(&bytes[b.value.span.range()], b"yes");
}

#[test]
fn errors_have_reference_positions() {
    assert_eq!(error("a: b: c"), ("Unexpected ':'".into(), 1, 5));
    assert_eq!(error("Hello\nWorld"), ("Unexpected 'World'".into(), 2, 1));
    assert_eq!(error("a: 1\na: 2"), ("Duplicated key 'a'".into(), 2, 1));
    assert_eq!(
        error("\ta:\n b:"),
        ("Invalid combination of tabs and spaces".into(), 2, 2)
    );
    assert_eq!(error("- a: 1\n    b: 2"), ("Bad indentation".into(), 2, 5));
    assert_eq!(error("{ []: foo }"), ("Unacceptable key".into(), 1, 3));
    assert_eq!(error("[1, 2"), ("Unexpected end".into(), 1, 6));
    assert_eq!(error("žluťoučký: a: b").1, 1);
    assert_eq!(error("žluťoučký: a: b").2, 17);
    assert_eq!(
        error("\"\\uD801\""),
        ("Invalid UTF-8 sequence \\uD801".into(), 1, 1)
    );
    assert_eq!(error("a: `x`"), ("Unexpected '`x`'".into(), 1, 4));
}

/// Tabs mixed with spaces: at the line's first token, as the reference reports it, with the
/// indentation that does not fit as a secondary label (a new user's trial looked for the
/// caret under the tab). CR bytes removed before lexing do not shift it.
#[test]
fn mixed_indentation_labels_the_indentation() {
    for (text, indent) in [
        ("services:\n  a: x\n\tb: y\n", 17..18),
        ("services:\r\n  a: x\r\n \t b: y\r\n", 19..22),
    ] {
        let d = decode(text, FileId(0)).unwrap_err();
        assert_eq!(d.message, "Invalid combination of tabs and spaces");
        let labels: Vec<(std::ops::Range<usize>, bool, &str)> = d
            .labels
            .iter()
            .map(|l| (l.span.range(), l.primary, l.message.as_str()))
            .collect();
        let first = indent.end;
        assert_eq!(
            labels,
            [
                (
                    first..first + 1,
                    true,
                    "this line is indented differently from its enclosing block"
                ),
                (indent, false, "this indentation"),
            ],
            "{text:?}"
        );
    }
}

#[test]
fn invalid_utf8_is_positioned() {
    // A stray continuation byte is no letter of another encoding: no note.
    let d = decode_bytes(b"a: b\nc: \x80\n", FileId(0)).unwrap_err();
    assert_eq!(d.message, "Invalid UTF-8 sequence.");
    assert_eq!(d.primary_span().unwrap().start, 8);
    assert!(d.notes.is_empty(), "{:?}", d.notes);
}

#[test]
fn a_latin1_letter_is_named_as_one() {
    let d = decode_bytes(b"a: caf\xe9 au lait\n", FileId(0)).unwrap_err();
    assert_eq!(d.message, "Invalid UTF-8 sequence.");
    assert_eq!(d.primary_span().unwrap().start, 6);
    assert!(
        d.notes[0].starts_with("byte 0xE9 is '\u{e9}' in Latin-1 (ISO 8859-1) and Windows-1252"),
        "{:?}",
        d.notes
    );
}

#[test]
fn a_blank_neon_does_not_read_as_one_is_named() {
    for (text, name, at) in [
        (
            "services:\n\tlogger:\u{a0}App\\Log\n\tfoo: App\\Log\n",
            "no-break space",
            18,
        ),
        ("a:\n\tb: 1\nc:\u{a0}z\nd: 2\n", "no-break space", 11),
        ("a: 1\nb: [1,\u{200b}2]]\n", "zero-width space", 11),
    ] {
        let d = dec(text).unwrap_err();
        let label = d
            .labels
            .iter()
            .find(|l| !l.primary)
            .expect("a secondary label");
        assert_eq!(label.span.start as usize, at, "{text:?}");
        assert!(label.message.starts_with(name), "{}", label.message);
        assert!(
            d.notes[0].starts_with("NEON reads only spaces and tabs as blanks"),
            "{:?}",
            d.notes
        );
    }
    // Not for a byte order mark at the start of the text, nor away from the error's lines.
    let d = dec("\u{feff}a: 1\nb: ]\n").unwrap_err();
    assert!(d.labels.iter().all(|l| l.primary), "{:?}", d.labels);
    let d = dec("a: x\u{a0}y\nb: 1\nc: 2\nd: ]\n").unwrap_err();
    assert!(
        d.notes.iter().all(|n| !n.contains("blanks")),
        "{:?}",
        d.notes
    );
    // Nor for one inside a quoted string, where it is meant.
    let d = dec("price: '100\u{a0}EUR'\nb: ]\n").unwrap_err();
    assert!(
        d.notes.iter().all(|n| !n.contains("blanks")),
        "{:?}",
        d.notes
    );
}

#[test]
fn an_unclosed_multi_line_string_is_labelled_as_never_closed() {
    let label = |text: &str| {
        let d = decode_bytes(text.as_bytes(), FileId(0)).unwrap_err();
        assert!(d.message.starts_with("Unexpected '"), "{}", d.message);
        d.labels[0].message.clone()
    };
    let never_closed = "this multi-line string is never closed: its closing delimiter must stand \
                        on a line of its own";
    assert_eq!(label("a: '''\n\tline one\nb: 1\n"), never_closed);
    // The message quotes the rest on one line: line breaks and tabs escaped.
    let d = decode_bytes(b"a: '''\n\tline one\n", FileId(0)).unwrap_err();
    assert_eq!(d.message, "Unexpected ''''\\n\\tline one\\n'");
    assert_eq!(label("a: \"\"\"\n\tline one\nb: 1\n"), never_closed);
    assert_eq!(
        label("a: '''text\n'''\n"),
        "this multi-line string needs a line break right after its opening delimiter"
    );
    assert_eq!(
        label("a: \"open\n"),
        "this string is not closed (quoted strings end on the same line)"
    );
}

#[test]
fn utf16_text_gets_a_note_saying_so() {
    // "a: b" in UTF-16 LE and BE, each behind its byte-order mark.
    for bytes in [&b"\xff\xfea\0:\0 \0b\0"[..], &b"\xfe\xff\0a\0:\0 \0b"[..]] {
        let d = decode_bytes(bytes, FileId(0)).unwrap_err();
        assert_eq!(d.message, "Invalid UTF-8 sequence.");
        assert_eq!(d.primary_span().unwrap().start, 0);
        assert!(d.notes[0].contains("looks like UTF-16"), "{:?}", d.notes);
    }
}

fn run_with_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    run_with_small_stack(|| {
        let brackets = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let (msg, _, _) = error(&brackets);
        assert!(msg.starts_with("Nesting too deep"), "{msg}");

        // (10,000 levels of real indentation are 50 MB of text: tests/neon_robustness.rs)
        let mut indented = String::new();
        for i in 0..1_000 {
            indented.push_str(&" ".repeat(i));
            indented.push_str("a:\n");
        }
        let (msg, line, _) = error(&indented);
        assert!(msg.starts_with("Nesting too deep"), "{msg}");
        assert_eq!(line, MAX_DEPTH + 1);

        let bullets = "- ".repeat(10_000);
        assert!(error(&bullets).0.starts_with("Nesting too deep"));

        // just below the limit works, also on a small stack
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        assert!(dec(&ok).is_ok());
        let entities = format!(
            "{}{}",
            "a(".repeat(MAX_DEPTH - 1),
            ")".repeat(MAX_DEPTH - 1)
        );
        assert!(dec(&entities).is_ok());

        // A flat chain counts a level per link, and says so (a new user's trial read
        // `b()b()…` as one level); one link fewer decodes.
        let chain = |links: usize| format!("a: {}", "b()".repeat(links));
        let d = dec(&chain(MAX_DEPTH)).expect_err("too deep");
        assert!(d.message.starts_with("Nesting too deep"), "{}", d.message);
        assert!(
            d.notes
                .iter()
                .any(|n| n.contains("every link counts as one level")),
            "{:?}",
            d.notes
        );
        assert!(dec(&chain(MAX_DEPTH - 1)).is_ok());
        // Brackets too deep say nothing about chains.
        let d = dec(&brackets).expect_err("too deep");
        assert!(
            !d.notes.iter().any(|n| n.contains("chain")),
            "{:?}",
            d.notes
        );
    });
}

#[test]
fn nested_bullets_are_not_exponential() {
    // every level could try a tab and then two spaces
    let mut s = "- ".repeat(60);
    s.push_str("a\n");
    s.push_str(&"  ".repeat(59));
    s.push_str("- b\n");
    let start = std::time::Instant::now();
    let _ = dec(&s);
    // A hang guard, not a speed measurement: exponential backtracking would take hours.
    assert!(start.elapsed().as_secs() < 20);
}

#[test]
fn errors_explain_themselves() {
    let src = "a: 1\nb:\n  x: 1\n  x: 2\n";
    let d = dec(src).unwrap_err();
    let first = d
        .labels
        .iter()
        .find(|l| !l.primary)
        .expect("secondary label");
    assert_eq!(&src[first.span.range()], "x");
    assert_eq!(first.span.start, 10); // the first `x`
    assert_eq!(d.primary_span().unwrap().start, 17);

    let d = dec("a:\n\tb: 1\n  c: 2").unwrap_err();
    assert_eq!(
        d.notes,
        ["the enclosing block is indented with 1 tab, this line with 2 spaces"]
    );

    let d = dec("url: http://x/?a=1").unwrap_err();
    assert_eq!(d.message, "Unexpected '='");
    assert!(d.notes[0].contains("quote"));

    // A `,` after an unquoted value in a block: the value was meant to hold it.
    let d = dec("types:\n\tworkers: int<0, max>").unwrap_err();
    assert_eq!(d.message, "Unexpected ','");
    assert_eq!(
        d.notes,
        ["a `,` ends an unquoted value; quote a value that contains `,`, e.g. 'int<0, max>' or 'a, b'"]
    );
    // Not after a bracket or a quoted string (nothing was cut short there).
    assert!(dec("a: [,]").unwrap_err().notes.is_empty());
    assert!(dec("a: 'x', b").unwrap_err().notes.is_empty());
}

#[test]
fn array_push_tracks_the_next_index() {
    let v = |i: i64| Value::new(Kind::Int(i), Span::default());
    let keys = |a: &Array| a.entries.keys().cloned().collect::<Vec<_>>();
    let mut a = Array::new();
    a.push(v(0));
    a.insert(Key::Int(5), Span::default(), v(5));
    a.push(v(6));
    a.insert(Key::Int(-3), Span::default(), v(-3));
    a.push(v(7));
    assert_eq!(
        keys(&a),
        [0, 5, 6, -3, 7].map(Key::Int).to_vec(),
        "one more than the largest integer key"
    );
    let mut neg = Array::new();
    neg.insert(Key::Int(-5), Span::default(), v(-5));
    assert_eq!(neg.next_index(), 0);
    // edits of `entries` behind the array's back are noticed
    a.entries.insert(
        Key::Int(100),
        Entry {
            key_span: Span::default(),
            value: v(100),
        },
    );
    assert_eq!(a.next_index(), 101);
    a.push(v(101));
    assert_eq!(a.entries.keys().last(), Some(&Key::Int(101)));
    // no index after i64::MAX: no overflow, the item is refused
    a.insert(Key::Int(i64::MAX), Span::default(), v(0));
    assert_eq!(a.checked_next_index(), None);
    assert_eq!(a.next_index(), i64::MAX);
    let len = a.len();
    assert!(a.try_push(v(1)).is_err());
    a.push(v(1));
    assert_eq!(a.len(), len);
    // amortised O(1): this took seconds when every push scanned the keys
    let mut big = Array::new();
    for i in 0..200_000 {
        big.push(v(i));
    }
    assert_eq!(big.next_index(), 200_000);
    assert!(big.is_list());
}

/// The labels of the error for `s`: (primary?, line, byte column, message) each.
fn error_labels(s: &str) -> (Diagnostic, Vec<(bool, usize, usize, String)>) {
    let mut sm = SourceMap::new();
    let f = sm.add("t.neon", s);
    let d = decode(s, f).expect_err(s);
    let labels = d
        .labels
        .iter()
        .map(|l| {
            let (line, col) = sm.get(f).line_col(l.span.start as usize);
            (l.primary, line, col, l.message.clone())
        })
        .collect();
    (d, labels)
}

#[test]
fn an_invalid_escape_in_a_block_is_reported_at_the_escape() {
    let src = "a: \"\"\"\n\tfirst\n\tC:\\Users\\x\n\"\"\"\n";
    assert_eq!(
        error(src),
        ("Invalid escaping sequence \\U".to_string(), 3, 4)
    );
    let (d, labels) = error_labels(src);
    assert!(labels.contains(&(false, 1, 4, "the string starts here".into())));
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("'''") && n.contains("\\\\")),
        "{:?}",
        d.notes
    );
    // On one line, nette/neon's position (the string) stays; the escape is labelled.
    let (_, labels) = error_labels("a: \"x\\qy\"\n");
    assert!(labels.contains(&(true, 1, 4, "in this string".into())));
    assert!(labels.contains(&(false, 1, 6, "not a valid escape".into())));
}

#[test]
fn columns_on_line_one_do_not_count_a_byte_order_mark() {
    assert_eq!(
        error("\u{feff}a: b: c\n"),
        ("Unexpected ':'".to_string(), 1, 5)
    );
}

#[test]
fn an_unclosed_bracket_is_labelled_where_it_opens() {
    for (src, col, bracket) in [
        ("a: [1, 2\nb: 3\n", 4, '['),
        ("x: {k: v\n", 4, '{'),
        ("svc: Foo(1,\n", 9, '('),
        ("a: [1, {b: 2\n", 8, '{'),
    ] {
        let (d, labels) = error_labels(src);
        assert_eq!(d.message, "Unexpected end", "{src:?}");
        assert!(
            labels.contains(&(false, 1, col, format!("this '{bracket}' is never closed"))),
            "{src:?}: {labels:?}"
        );
    }
}

/// A bracket left open reads the entries after it as its items until one does not fit: the
/// error there also points at the bracket, when a line between starts no deeper than the
/// bracket's own line (as the next entries do). A bracket whose items are spread over deeper
/// lines, with an error among them, gets no such label.
#[test]
fn a_bracket_left_open_is_labelled_at_a_later_error() {
    for (src, line, col, bracket, message) in [
        (
            "services:\n\tdb: Db(%dsn%\n\tlog: Log\n\tx:\n\t\t- a\n",
            2,
            8,
            '(',
            "Unexpected '-'",
        ),
        (
            "parameters:\n\tlevel: {\ntypes:\n\tA:\n\t\tc: 1\n\tB:\n\t\tc: 2\n",
            2,
            9,
            '{',
            "Duplicated key 'c'",
        ),
    ] {
        let (d, labels) = error_labels(src);
        assert_eq!(d.message, message, "{src:?}");
        assert!(
            labels.contains(&(
                false,
                line,
                col,
                format!("this '{bracket}' is still open here")
            )),
            "{src:?}: {labels:?}"
        );
        assert!(
            d.notes.iter().any(|n| n.contains("is still open")),
            "{src:?}: {:?}",
            d.notes
        );
    }
    let (d, labels) = error_labels("a: [\n\t1, 2\n\tb: c: d\n]\n");
    assert_eq!(d.message, "Unexpected ':'");
    assert_eq!(labels.len(), 1, "{labels:?}");
    assert!(d.notes.is_empty(), "{:?}", d.notes);
}

/// Every map entry holds a `Value` and most values are scalars: a collection is boxed so a
/// value stays 48 bytes (it was ≈ 100 with the map inline), and a boxed collection is 72 bytes.
#[test]
fn values_and_collections_stay_small() {
    assert!(
        std::mem::size_of::<Value>() <= 48,
        "{}",
        std::mem::size_of::<Value>()
    );
    assert!(
        std::mem::size_of::<Entry>() <= 64,
        "{}",
        std::mem::size_of::<Entry>()
    );
    assert!(
        std::mem::size_of::<Array>() <= 72,
        "{}",
        std::mem::size_of::<Array>()
    );
}

/// Keys and strings of up to 24 bytes (service, class and field names) are stored inline, with
/// no heap block, and a key is no larger than the string it holds.
#[test]
fn short_keys_and_strings_need_no_heap_block() {
    assert!(
        std::mem::size_of::<Key>() <= 24,
        "{}",
        std::mem::size_of::<Key>()
    );
    let v = decode(
        "App\\Service123456:\n\tcreate: App\\Model\\UserRepository\n",
        FileId(0),
    )
    .unwrap();
    let Kind::Array(map) = &v.kind else {
        panic!("expected a map, got {v:?}")
    };
    let (key, entry) = map.entries.get_index(0).unwrap();
    let Key::Str(name) = key else {
        panic!("expected a string key, got {key:?}")
    };
    assert_eq!(name.as_str(), "App\\Service123456");
    assert!(!name.is_heap_allocated());
    let Kind::Array(fields) = &entry.value.kind else {
        panic!("expected a map, got {:?}", entry.value)
    };
    let Some(Kind::Str(class)) = fields.get("create").map(|v| &v.kind) else {
        panic!("expected a string under create, got {fields:?}")
    };
    assert_eq!(class.as_str(), "App\\Model\\UserRepository");
    assert!(!class.is_heap_allocated());
    // Longer text still decodes whole, on the heap.
    let long = "x".repeat(40);
    let v = decode(&format!("k: {long}"), FileId(0)).unwrap();
    let Some(Kind::Str(s)) = v.as_array().and_then(|a| a.get("k")).map(|v| &v.kind) else {
        panic!("expected a string, got {v:?}")
    };
    assert_eq!(s.as_str(), long);
    assert!(s.is_heap_allocated());
}

/// A decoded map keeps little room for entries it will never get (a map grows to its hash
/// table's capacity, by doubling: one entry had room for three): a one-entry map has room for
/// exactly one, any other for at most half again as many as it holds.
#[test]
fn decoded_maps_hold_few_spare_entries() {
    for n in [1usize, 2, 3, 4, 5, 9, 100, 1000] {
        let text: String = (0..n).map(|i| format!("k{i}: {{a: {i}}}\n")).collect();
        let v = dec(&text).unwrap();
        let a = v.as_array().unwrap();
        assert_eq!(a.len(), n);
        let room = a.entries.capacity();
        assert!(
            room >= n && room <= n + n / 2,
            "{n} entries, room for {room}"
        );
        let inner = a.get("k0").and_then(Value::as_array).unwrap();
        assert_eq!(inner.entries.capacity(), 1);
    }
}

/// The next implicit index stays right across pushes, explicit keys and direct edits of the
/// entries (the recorded largest key is only trusted at the length it was recorded at).
#[test]
fn next_index_follows_edits() {
    let mut a = Array::new();
    assert_eq!(a.next_index(), 0);
    a.push(Value::new(Kind::Int(1), Span::default()));
    a.insert(
        Key::Int(7),
        Span::default(),
        Value::new(Kind::Null, Span::default()),
    );
    assert_eq!(a.next_index(), 8);
    a.entries.shift_remove(&Key::Int(7));
    assert_eq!(a.next_index(), 1);
    a.insert(
        Key::Int(-4),
        Span::default(),
        Value::new(Kind::Null, Span::default()),
    );
    assert_eq!(a.next_index(), 1);
    a.insert(
        Key::Int(i64::MAX),
        Span::default(),
        Value::new(Kind::Null, Span::default()),
    );
    assert_eq!(a.checked_next_index(), None);
    let v = Value::new(Kind::Int(2), Span::default());
    assert_eq!(a.try_push(v.clone()), Err(v));
}

/// Keys of collections past the scratch stack's `SMALL` items take their place in the map
/// before their value is parsed (`Builder::claim`): a duplicate is still reported at the key,
/// before an error in its value; an implicit index given again explicitly keeps its place.
#[test]
fn keys_of_large_collections() {
    let block: String = (0..10).map(|i| format!("k{i}: {i}\n")).collect();
    assert_eq!(
        error(&format!("{block}k3: [\n")),
        ("Duplicated key 'k3'".into(), 11, 1)
    );
    assert_eq!(
        error("[a, b, c, d, e, f, g, h, i, j, 2: z, 2: y]"),
        ("Duplicated key '2'".into(), 1, 38)
    );
    assert_eq!(
        json("[a, b, c, d, e, f, g, h, i, j, 2: z, k]"),
        r#"["a","b","z","d","e","f","g","h","i","j","k"]"#
    );
    assert_eq!(
        json("{a, b, 2: z, c: 1, d: 2, e: 3, f: 4, g: 5, h: 6, i: 7, 1: q, r}"),
        r#"{"0":"a","1":"q","2":"z","c":1,"d":2,"e":3,"f":4,"g":5,"h":6,"i":7,"3":"r"}"#
    );
    // the place of a key whose value is a nested collection gets that collection
    assert_eq!(
        json(&format!("{block}x:\n  - 1\n  - {{p: [q]}}\ny: 2")),
        r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"x":[1,{"p":["q"]}],"y":2}"#
    );
}

#[test]
fn only_a_decode_alone_or_one_ahead_of_the_loader_splits() {
    // two decodes running on this thread's count: not alone
    std::thread::spawn(|| {
        let (_a, _b) = (super::Decoding::start(), super::Decoding::start());
        assert!(!super::decoding_alone());
        // a file decoded ahead of the loader is what the loader waits for: it may split
        super::decoding_ahead();
        assert!(super::decoding_alone());
    })
    .join()
    .expect("no panic");
    // the mark stays on its thread
    std::thread::spawn(|| {
        let (_a, _b) = (super::Decoding::start(), super::Decoding::start());
        assert!(!super::decoding_alone());
    })
    .join()
    .expect("no panic");
}

/// A slip on the line before the error is named there (a new user's trial: only the next line
/// was shown): `key:value` without a space is one string, a word without its `:` before a
/// deeper line is a value; a line less indented than the one before, at no block's depth, is
/// not called deeper. The messages and positions stay nette/neon's.
#[test]
fn the_line_before_is_blamed_when_it_holds_the_slip() {
    let (d, labels) = error_labels("services:\n\tlogger:Shop\\Logger\n\tmailer: Shop\\Mailer\n");
    assert_eq!(d.message, "Bad indentation");
    assert_eq!(
        labels,
        [
            (
                true,
                3,
                2,
                "deeper than its block, but no nested block can start here".into()
            ),
            (false, 2, 2, "read as one value".into()),
        ]
    );
    assert_eq!(
        d.notes[0],
        "the line before holds the one string 'logger:Shop\\Logger': a key needs a space after its ':' (`logger: Shop\\Logger`)"
    );

    let (d, labels) = error_labels("services\n\tlogger: Shop\\Logger\n");
    assert_eq!(d.message, "Unexpected 'logger'");
    assert_eq!(labels[1], (false, 1, 1, "read as one value".into()));
    assert_eq!(
        d.notes,
        ["the line before holds the value 'services', not a key: write `services:` to open a block"]
    );

    let (d, labels) = error_labels("services:\n\t\tlogger: A\n\tmailer: B\n");
    assert_eq!(d.message, "Bad indentation");
    assert_eq!(
        labels,
        [(
            true,
            3,
            2,
            "less indented than the line before, but as deep as no enclosing block".into()
        )]
    );

    // A key written without its `:` (`create App\Foo(…)`), an item without the space after
    // its `-`, and a block key without its `:` before a deeper list (a new user's trial: each
    // was reported on the next line only).
    let (d, labels) = error_labels("s:\n\tlogger:\n\t\tcreate App\\Log(/tmp)\n\t\ttags: [x]\n");
    assert_eq!(d.message, "Bad indentation");
    assert_eq!(labels[1], (false, 3, 3, "read as one value".into()));
    assert_eq!(
        d.notes[0],
        "the line before starts with 'create App\\Log', not a key: a key needs a ':' after it (`create: App\\Log…`)"
    );
    let (d, labels) = error_labels("s:\n\t-App\\Clock\n\t- App\\Db\n");
    assert_eq!(labels[1], (false, 2, 2, "read as one value".into()));
    assert_eq!(
        d.notes[0],
        "the line before holds the one string '-App\\Clock', not a list item: a `-` needs a space after it (`- App\\Clock`)"
    );
    let (d, labels) = error_labels("s:\n\tcreate: A\n\tsetup\n\t\t- b()\n");
    assert_eq!(d.message, "Unexpected '<new line>'");
    assert_eq!(labels[1], (false, 3, 2, "a key without its ':'".into()));
    assert_eq!(
        d.notes,
        ["'setup' is written without its ':': write `setup:` to open the block below it"]
    );

    // Not for a value with a space after its colon, a URL, or a line of several tokens.
    for s in [
        "a: b\n  c: d\n",
        "- http://x.org\n  c: d\n",
        "a\nb: c\n",
        "x: [1,\n2]\n  y: 3\n",
        "- -1\n  - 2\n",
        "m:\n\t- hello world\n\t\tx: 1\n",
        "m:\n\t- say Hi(1)\n\t\tx: 1\n",
        "a: 12:30 x\n  b: c\n",
    ] {
        if let Err(d) = dec(s) {
            assert!(
                d.notes.iter().all(|n| !n.starts_with("the line before")),
                "{s:?}: {:?}",
                d.notes
            );
        }
    }
}

/// The line-before hint never looks before the first token or past the last (the robustness
/// corpus found `"\n\n\n: 1 1"` panicking on an underflow in a debug build).
#[test]
fn the_line_before_hint_stays_inside_the_tokens() {
    for s in [
        "\n\n\n: 1 1",
        "\n: -11",
        "\n\tx",
        "a\n\tb",
        "\n",
        "a:b\n\tc",
    ] {
        let _ = dec(s);
    }
}
