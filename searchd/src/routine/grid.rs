//! Weekday × hour grids: how many units (content times) or activity events fall in each
//! hour of each weekday, overall, per folder and per kind, each cell with its evidence.

use std::collections::HashMap;

use chrono::{Datelike, NaiveDateTime, Timelike};
use serde::Serialize;

use super::evidence::{Evidence, EvidenceList};

/// Lower-case weekday names, Monday first.
pub use converters::unit::WEEKDAY_NAMES as WEEKDAYS;

/// One non-empty hour of one weekday.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cell {
    pub weekday: &'static str,
    /// 0 = Monday.
    #[serde(skip)]
    pub weekday_index: usize,
    /// Local hour, 0–23.
    pub hour: u32,
    pub count: u64,
    pub evidence: EvidenceList,
}

/// A 7 × 24 grid of counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grid {
    pub total: u64,
    /// Monday first.
    pub by_weekday: [u64; 7],
    pub by_hour: [u64; 24],
    /// `counts[weekday][hour]`, Monday first.
    pub counts: [[u64; 24]; 7],
    /// Non-empty cells, busiest first (then by weekday and hour), at most the grid's cap.
    pub cells: Vec<Cell>,
}

/// Builds a grid, keeping evidence for every cell.
#[derive(Debug, Clone)]
pub struct GridBuilder {
    counts: [[u64; 24]; 7],
    evidence: HashMap<(usize, u32), EvidenceList>,
    cap: usize,
}

impl GridBuilder {
    /// `cap`: evidence kept per cell.
    pub fn new(cap: usize) -> GridBuilder {
        GridBuilder {
            counts: [[0; 24]; 7],
            evidence: HashMap::new(),
            cap,
        }
    }

    pub fn add(&mut self, local: NaiveDateTime, evidence: Evidence) {
        let day = local.weekday().num_days_from_monday() as usize;
        let hour = local.hour();
        self.counts[day][hour as usize] += 1;
        self.evidence
            .entry((day, hour))
            .or_default()
            .push(evidence, self.cap);
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().flatten().sum()
    }

    /// The grid with at most `max_cells` cells listed (the counts are always complete).
    pub fn finish(mut self, max_cells: usize) -> Grid {
        let mut by_weekday = [0; 7];
        let mut by_hour = [0; 24];
        let mut cells = Vec::new();
        for (day, hours) in self.counts.iter().enumerate() {
            for (hour, &count) in hours.iter().enumerate() {
                by_weekday[day] += count;
                by_hour[hour] += count;
                if count > 0 {
                    cells.push(Cell {
                        weekday: WEEKDAYS[day],
                        weekday_index: day,
                        hour: hour as u32,
                        count,
                        evidence: self
                            .evidence
                            .remove(&(day, hour as u32))
                            .unwrap_or_default(),
                    });
                }
            }
        }
        cells.sort_by(|a, b| {
            (b.count, a.weekday_index, a.hour).cmp(&(a.count, b.weekday_index, b.hour))
        });
        cells.truncate(max_cells);
        Grid {
            total: by_weekday.iter().sum(),
            by_weekday,
            by_hour,
            counts: self.counts,
            cells,
        }
    }
}

/// Grids keyed by a name (a folder, a kind), finished busiest first.
#[derive(Debug, Clone, Default)]
pub struct GridSet {
    grids: HashMap<String, GridBuilder>,
}

impl GridSet {
    pub fn add(&mut self, name: &str, cap: usize, local: NaiveDateTime, evidence: Evidence) {
        self.grids
            .entry(name.to_string())
            .or_insert_with(|| GridBuilder::new(cap))
            .add(local, evidence);
    }

    /// Total of one grid (0 when absent).
    pub fn total(&self, name: &str) -> u64 {
        self.grids.get(name).map_or(0, GridBuilder::total)
    }

    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.grids.keys()
    }

    /// Removes and finishes one grid (an empty grid when absent).
    pub fn take(&mut self, name: &str, max_cells: usize) -> Grid {
        self.grids
            .remove(name)
            .unwrap_or_else(|| GridBuilder::new(0))
            .finish(max_cells)
    }

    /// The `top` busiest grids, finished, as `(name, grid)`.
    pub fn top(mut self, top: usize, max_cells: usize) -> Vec<(String, Grid)> {
        let mut names: Vec<(u64, String)> = self
            .grids
            .iter()
            .map(|(name, grid)| (grid.total(), name.clone()))
            .collect();
        names.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        names
            .into_iter()
            .take(top)
            .map(|(_, name)| {
                let grid = self.take(&name, max_cells);
                (name, grid)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: u32, hour: u32) -> NaiveDateTime {
        // 2025-10-06 is a Monday.
        chrono::NaiveDate::from_ymd_opt(2025, 10, 6 + day)
            .unwrap()
            .and_hms_opt(hour, 30, 0)
            .unwrap()
    }

    #[test]
    fn counts_cells_and_margins() {
        let mut grid = GridBuilder::new(2);
        for (i, (day, hour)) in [(2, 18), (2, 18), (2, 18), (0, 9), (6, 23)]
            .into_iter()
            .enumerate()
        {
            grid.add(
                at(day, hour),
                Evidence::unit(&format!("f{i}.ics"), &format!("u{i}"), at(day, hour)),
            );
        }
        let grid = grid.finish(2);
        assert_eq!(grid.total, 5);
        assert_eq!(grid.by_weekday, [1, 0, 3, 0, 0, 0, 1]);
        assert_eq!(grid.by_hour[18], 3);
        assert_eq!(grid.counts[2][18], 3);
        assert_eq!(grid.counts[6][23], 1);
        // Busiest first, then Monday before Sunday; capped at two cells.
        let cells: Vec<_> = grid
            .cells
            .iter()
            .map(|c| (c.weekday, c.hour, c.count))
            .collect();
        assert_eq!(cells, vec![("wednesday", 18, 3), ("monday", 9, 1)]);
        let evidence: Vec<_> = grid.cells[0]
            .evidence
            .items()
            .iter()
            .map(|e| e.path.as_str())
            .collect();
        assert_eq!(evidence, vec!["f0.ics", "f1.ics"]);
    }

    #[test]
    fn grid_sets_keep_the_busiest() {
        let mut set = GridSet::default();
        for name in ["Mail", "Notes", "Mail", "Calendar", "Mail", "Notes"] {
            set.add(name, 1, at(1, 10), Evidence::file(name));
        }
        assert_eq!(set.total("Mail"), 3);
        let top: Vec<_> = set
            .top(2, 10)
            .into_iter()
            .map(|(name, grid)| (name, grid.total))
            .collect();
        assert_eq!(top, vec![("Mail".to_string(), 3), ("Notes".to_string(), 2)]);
    }
}
