//! Date literals: the reference's date pattern plus PHP's date parser ranges and roll-over.
//!
//! Pattern: `YYYY-M?M-D?D`, optionally (`T`/`t`/spaces) `H?H:MM:SS`, an optional fraction, spaces
//! and an optional zone `Z`, `±H`, `±HH`, `±HHMM`, `±HH:MM`. Out-of-calendar days roll over
//! (`2024-02-30` is March 1st); month 0–12, day 0–31, hour 0–24, minute 0–59, second 0–60 are
//! accepted, anything else is an error. A date without a zone is UTC.

/// `None` when `text` does not look like a date (it stays a string); `Some(Err)` for a date-like
/// text with parts out of range; otherwise the normalised `YYYY-MM-DDTHH:MM:SS[.ffffff]±HH:MM`.
pub(crate) fn parse(text: &str) -> Option<Result<String, String>> {
    let b = text.as_bytes();
    let mut p = Cursor { b, i: 0 };
    let year = p.digits(4, 4)?;
    p.byte(b'-')?;
    let month = p.digits(1, 2)?;
    p.byte(b'-')?;
    let day = p.digits(1, 2)?;
    let (mut hour, mut minute, mut second, mut micros, mut offset) = (0, 0, 0, 0u32, 0i64);
    if !p.at_end() {
        // time part
        if p.byte(b'T').is_none() && p.byte(b't').is_none() && p.spaces() == 0 {
            return None;
        }
        hour = p.digits(1, 2)?;
        p.byte(b':')?;
        minute = p.digits(2, 2)?;
        p.byte(b':')?;
        second = p.digits(2, 2)?;
        if p.byte(b'.').is_some() {
            let start = p.i;
            while p.i < b.len() && b[p.i].is_ascii_digit() {
                p.i += 1;
            }
            let frac = &text[start..p.i];
            let mut us = String::from(frac);
            us.truncate(6);
            while us.len() < 6 {
                us.push('0');
            }
            micros = us.parse().unwrap_or(0);
        }
        p.spaces();
        if p.byte(b'Z').is_none() && !p.at_end() {
            let neg = match b[p.i] {
                b'+' => false,
                b'-' => true,
                _ => return None,
            };
            p.i += 1;
            let zone = &text[p.i..];
            offset = zone_offset(zone)?;
            if neg {
                offset = -offset;
            }
            p.i = b.len();
        }
        if !p.at_end() {
            return None;
        }
    }
    if month > 12 || day > 31 || hour > 24 || minute > 59 || second > 60 {
        return Some(Err(format!(
            "Invalid date '{text}': a part is out of range"
        )));
    }
    // roll over: month 0 and day 0 step back, 24:00 and second 60 carry forward
    let months = year * 12 + month - 1; // month 0 = December of the year before
    let (y, m) = (months.div_euclid(12), months.rem_euclid(12) + 1);
    let days = days_from_civil(y, m, 1) + day - 1;
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second;
    let (days, tod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let mut out = if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("{y:04}")
    };
    out.push_str(&format!(
        "-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        tod / 3600,
        tod / 60 % 60,
        tod % 60
    ));
    if micros != 0 {
        out.push_str(&format!(".{micros:06}"));
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let a = offset.abs();
    out.push_str(&format!("{sign}{:02}:{:02}", a / 60, a % 60));
    Some(Ok(out))
}

/// Minutes of a zone offset after its sign, as PHP reads `H`, `HH`, `H:MM`, `HHMM`, `HH:MM`.
/// The pattern allows `\d\d?(:?\d\d)?`.
fn zone_offset(z: &str) -> Option<i64> {
    let b = z.as_bytes();
    let ok = match b.len() {
        1 | 2 => b.iter().all(u8::is_ascii_digit),
        3 => b.iter().all(u8::is_ascii_digit),
        4 => {
            b.iter().all(u8::is_ascii_digit)
                || (b[1] == b':' && b[0].is_ascii_digit() && b[2..].iter().all(u8::is_ascii_digit))
        }
        5 => b[2] == b':' && b[..2].iter().chain(&b[3..]).all(u8::is_ascii_digit),
        _ => false,
    };
    if !ok {
        return None;
    }
    let num = |s: &str| s.parse::<i64>().unwrap_or(0);
    Some(match b.len() {
        1 | 2 => num(z) * 60,
        _ if b[1] == b':' => num(&z[..1]) * 60 + num(&z[2..]),
        _ if b[2] == b':' => num(&z[..2]) * 60 + num(&z[3..]),
        _ => {
            let n = num(z);
            n / 100 * 60 + n % 100
        }
    })
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn at_end(&self) -> bool {
        self.i >= self.b.len()
    }

    fn byte(&mut self, c: u8) -> Option<()> {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }

    fn spaces(&mut self) -> usize {
        let s = self.i;
        while self.b.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
        self.i - s
    }

    /// `min..=max` ASCII digits, greedily.
    fn digits(&mut self, min: usize, max: usize) -> Option<i64> {
        let s = self.i;
        while self.i - s < max && self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        if self.i - s < min {
            return None;
        }
        std::str::from_utf8(&self.b[s..self.i]).ok()?.parse().ok()
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn ok(s: &str) -> String {
        parse(s).unwrap().unwrap()
    }

    #[test]
    fn dates() {
        assert_eq!(ok("2024-01-31"), "2024-01-31T00:00:00+00:00");
        assert_eq!(ok("2024-02-30"), "2024-03-01T00:00:00+00:00");
        assert_eq!(ok("2024-1-5 1:02:03"), "2024-01-05T01:02:03+00:00");
        assert_eq!(
            ok("2024-01-31 10:20:30.123456"),
            "2024-01-31T10:20:30.123456+00:00"
        );
        assert_eq!(ok("2024-01-31   10:20:30 +01"), "2024-01-31T10:20:30+01:00");
        assert_eq!(ok("2024-01-31T10:20:30-0530"), "2024-01-31T10:20:30-05:30");
        assert_eq!(ok("2024-12-31T24:00:00Z"), "2025-01-01T00:00:00+00:00");
        assert_eq!(ok("2024-00-00"), "2023-11-30T00:00:00+00:00");
        assert!(parse("2024-01-31 10:20").is_none());
        assert!(parse("20240-01-31").is_none());
        assert!(parse("2024-01-31 CET").is_none());
        assert!(parse("2024-13-45").unwrap().is_err());
    }
}
