//! HTTP-date parsing (RFC 9110 §5.6.7): IMF-fixdate plus the two obsolete forms recipients must
//! still accept. Written here rather than pulling in a date crate for one header.

const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_DAYS: [&str; 7] =
    ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// Milliseconds since the Unix epoch of an HTTP-date, or `None` when it is not one.
pub(crate) fn parse_http_date(text: &str) -> Option<u64> {
    let text = text.trim();
    let parts: Vec<&str> = text.split_ascii_whitespace().collect();
    let (day, month, year, time) = match parts.as_slice() {
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        [weekday, day, month, year, time, "GMT"]
            if weekday.strip_suffix(',').is_some_and(|w| DAYS.contains(&w)) =>
        {
            if day.len() != 2 || year.len() != 4 {
                return None;
            }
            (parse_num(day)?, month_number(month)?, parse_num(year)?, *time)
        }
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        [weekday, date, time, "GMT"]
            if weekday.strip_suffix(',').is_some_and(|w| LONG_DAYS.contains(&w)) =>
        {
            let mut fields = date.split('-');
            let (Some(day), Some(month), Some(year), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return None;
            };
            if day.len() != 2 || year.len() != 2 {
                return None;
            }
            // Two-digit years: RFC 9110 says a date more than 50 years ahead means the past
            // century; with no clock here, 70-99 are read as 19xx and 00-69 as 20xx.
            let yy = parse_num(year)?;
            (
                parse_num(day)?,
                month_number(month)?,
                if yy >= 70 { 1900 + yy } else { 2000 + yy },
                *time,
            )
        }
        // asctime: Sun Nov  6 08:49:37 1994
        [weekday, month, day, time, year] if DAYS.contains(weekday) => {
            if day.is_empty() || day.len() > 2 || year.len() != 4 {
                return None;
            }
            (parse_num(day)?, month_number(month)?, parse_num(year)?, *time)
        }
        _ => return None,
    };
    let mut clock = time.split(':');
    let (Some(hh), Some(mm), Some(ss), None) =
        (clock.next(), clock.next(), clock.next(), clock.next())
    else {
        return None;
    };
    if hh.len() != 2 || mm.len() != 2 || ss.len() != 2 {
        return None;
    }
    let (hour, minute, second) = (parse_num(hh)?, parse_num(mm)?, parse_num(ss)?);
    // 60 allows a leap second.
    if !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 || year < 1970 {
        return None;
    }
    if day > days_in_month(year, month) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    seconds.checked_mul(1_000)
}

fn parse_num(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn month_number(name: &str) -> Option<u64> {
    MONTHS.iter().position(|&m| m == name).map(|i| i as u64 + 1)
}

fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`),
/// for years from 1970 on.
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
#[path = "http_date_tests.rs"]
mod tests;
