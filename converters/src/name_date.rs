//! The date a file's name gives it (`Scan 2025-09-15 lab results.pdf`,
//! `IMG_20240217_101522.jpg`, `Checking 2025-09.csv`), for units whose content carries
//! no date of their own: better than the file's modification time, which a copy of the
//! profile (an archive, a clone, `cp`) sets to the day of the copy. Pure functions.

use chrono::NaiveDate;

/// Years a name's date may have.
const YEARS: std::ops::RangeInclusive<i32> = 1990..=2099;

/// The first date in `name` (a file name, not a path): `YYYY-MM-DD` (or `_`/`.`
/// between), `YYYYMMDD` as a run of exactly eight digits, or `YYYY-MM` (the 1st of
/// the month). Digits that do not make a real date (`2024-26`, `v1.2`) are skipped.
pub fn date_in_name(name: &str) -> Option<NaiveDate> {
    let bytes = name.as_bytes();
    let runs = digit_runs(bytes);
    for (index, &(start, end)) in runs.iter().enumerate() {
        let number = |s: usize, e: usize| name[s..e].parse::<u32>().ok();
        match end - start {
            8 => {
                let (y, m, d) = (
                    number(start, start + 4)?,
                    number(start + 4, start + 6)?,
                    number(start + 6, end)?,
                );
                if let Some(date) = date(y, m, Some(d)) {
                    return Some(date);
                }
            }
            4 => {
                let Some(&sep) = bytes.get(end).filter(|b| b"-_.".contains(b)) else {
                    continue;
                };
                let Some(&(m_start, m_end)) = runs.get(index + 1) else {
                    continue;
                };
                if m_start != end + 1 || m_end - m_start != 2 {
                    continue;
                }
                let (year, month) = (number(start, end)?, number(m_start, m_end)?);
                let day = match runs.get(index + 2) {
                    Some(&(d_start, d_end))
                        if d_start == m_end + 1 && d_end - d_start == 2 && bytes[m_end] == sep =>
                    {
                        number(d_start, d_end)
                    }
                    _ => None,
                };
                if let Some(date) = date(year, month, day) {
                    return Some(date);
                }
            }
            _ => {}
        }
    }
    None
}

fn date(year: u32, month: u32, day: Option<u32>) -> Option<NaiveDate> {
    let year = i32::try_from(year).ok().filter(|y| YEARS.contains(y))?;
    NaiveDate::from_ymd_opt(year, month, day.unwrap_or(1))
}

/// `(start, end)` byte ranges of the maximal runs of ASCII digits.
fn digit_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ymd(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, d)
    }

    #[test]
    fn dates_in_the_shapes_people_and_devices_write() {
        assert_eq!(
            date_in_name("Scan 2025-09-15 lab results.pdf"),
            ymd(2025, 9, 15)
        );
        assert_eq!(date_in_name("IMG_20240217_101522.jpg"), ymd(2024, 2, 17));
        assert_eq!(date_in_name("Checking 2025-09.csv"), ymd(2025, 9, 1));
        assert_eq!(date_in_name("2025_10_03_minutes.md"), ymd(2025, 10, 3));
        assert_eq!(date_in_name("notes.2025.10.03.txt"), ymd(2025, 10, 3));
        assert_eq!(
            date_in_name("Screenshot 2025-10-22 at 18.04.11.png"),
            ymd(2025, 10, 22)
        );
        assert_eq!(date_in_name("race plan 2025-10-16.wav"), ymd(2025, 10, 16));
    }

    #[test]
    fn numbers_that_are_no_dates_are_skipped() {
        assert_eq!(date_in_name("Croke Park hours 2024-26.xlsx"), None);
        assert_eq!(date_in_name("report v1.2 final.docx"), None);
        assert_eq!(date_in_name("INV-2291.pdf"), None);
        assert_eq!(date_in_name("photo 123456789.jpg"), None);
        assert_eq!(date_in_name("1850-03-01 census.txt"), None);
        assert_eq!(date_in_name("2025-02-30 memo.txt"), None);
        assert_eq!(date_in_name("budget 2024-2025.xlsx"), None);
        assert_eq!(date_in_name("Takings Feb-Mar 2024.xlsx"), None);
        // A later real date is still found after one that is not.
        assert_eq!(
            date_in_name("v2024-13 then 2024-03-05.txt"),
            ymd(2024, 3, 5)
        );
    }
}
