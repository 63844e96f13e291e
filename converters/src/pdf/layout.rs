//! Turns positioned [`Run`]s into reading-order text: runs are grouped by writing
//! direction, sorted into lines by baseline (top to bottom), each line by position along
//! the baseline, with a space wherever runs are apart.

use super::extract::{Run, SPACE_GAP_EM};

/// A run expressed in its group's frame: `u` along the writing direction, `v` upwards.
#[derive(Clone, Copy)]
struct Placed<'r> {
    run: &'r Run,
    u0: f64,
    u1: f64,
    v: f64,
}

/// Most writing directions laid out separately per page.
const MAX_DIRECTIONS: usize = 16;

/// Lays the runs of one page out as lines of text.
pub(crate) fn layout(runs: &[Run]) -> String {
    let mut lines = Vec::new();
    for group in direction_groups(runs) {
        lines.extend(layout_group(&group));
    }
    lines.join("\n")
}

/// Splits runs by writing direction; the direction holding the most text comes first.
fn direction_groups(runs: &[Run]) -> Vec<Vec<&Run>> {
    let mut groups: Vec<((f64, f64), Vec<&Run>, usize)> = Vec::new();
    for run in runs {
        let full = groups.len() >= MAX_DIRECTIONS;
        let found = groups
            .iter_mut()
            .find(|(dir, _, _)| dir.0 * run.dir.0 + dir.1 * run.dir.1 > 0.99);
        match found {
            Some((_, members, chars)) => {
                members.push(run);
                *chars += run.text.len();
            }
            None if !full => groups.push((run.dir, vec![run], run.text.len())),
            // Pathological pages: further directions share the last group.
            None => {
                if let Some((_, members, _)) = groups.last_mut() {
                    members.push(run);
                }
            }
        }
    }
    // Stable: equal-sized groups keep their drawing order.
    groups.sort_by_key(|g| std::cmp::Reverse(g.2));
    groups.into_iter().map(|(_, members, _)| members).collect()
}

fn layout_group(runs: &[&Run]) -> Vec<String> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let (dx, dy) = first.dir;
    let mut placed: Vec<Placed> = runs
        .iter()
        .map(|run| Placed {
            run,
            u0: run.start.0 * dx + run.start.1 * dy,
            u1: run.end.0 * dx + run.end.1 * dy,
            v: run.start.1 * dx - run.start.0 * dy,
        })
        .collect();
    placed.sort_by(|a, b| b.v.total_cmp(&a.v));
    let mut lines: Vec<Vec<Placed>> = Vec::new();
    let mut line_v = 0.0;
    let mut line_size = 0.0;
    for item in placed {
        let same_line =
            !lines.is_empty() && (line_v - item.v).abs() <= 0.5 * item.run.size.max(line_size);
        if !same_line {
            line_v = item.v;
            line_size = item.run.size;
            lines.push(Vec::new());
        } else if item.run.size > line_size {
            // The largest text on a line defines its baseline (not a superscript).
            line_v = item.v;
            line_size = item.run.size;
        }
        if let Some(line) = lines.last_mut() {
            line.push(item);
        }
    }
    for line in &mut lines {
        line.sort_by(|a, b| a.u0.total_cmp(&b.u0));
    }
    order_columns(lines, 0).into_iter().map(join_line).collect()
}

/// Fewest lines on each side of a gutter for a block to be read as two columns.
const MIN_COLUMN_LINES: usize = 3;
/// Deepest column split (a three-column page splits twice).
const MAX_COLUMN_DEPTH: usize = 3;

/// Reads multi-column regions column by column: finds the vertical gutter most lines
/// break at, then, within each stretch of lines that no run crosses, emits the left
/// column's lines before the right column's when both sides hold full-width text (so
/// tables, whose cells are short, stay row by row).
fn order_columns(lines: Vec<Vec<Placed>>, depth: usize) -> Vec<Vec<Placed>> {
    if depth >= MAX_COLUMN_DEPTH || lines.len() < 2 * MIN_COLUMN_LINES {
        return lines;
    }
    let Some(gutter) = find_gutter(&lines) else {
        return lines;
    };
    let mut out = Vec::with_capacity(lines.len());
    let mut block: Vec<Vec<Placed>> = Vec::new();
    for line in lines {
        if crosses(&line, gutter) {
            flush_block(&mut block, gutter, depth, &mut out);
            out.push(line);
        } else {
            block.push(line);
        }
    }
    flush_block(&mut block, gutter, depth, &mut out);
    out
}

fn crosses(line: &[Placed], x: f64) -> bool {
    line.iter().any(|p| p.u0 < x && p.u1 > x)
}

/// The x most lines have text on both sides of, with no run across it.
fn find_gutter(lines: &[Vec<Placed>]) -> Option<f64> {
    let left = lines
        .iter()
        .flatten()
        .map(|p| p.u0)
        .fold(f64::INFINITY, f64::min);
    let right = lines
        .iter()
        .flatten()
        .map(|p| p.u1)
        .fold(f64::NEG_INFINITY, f64::max);
    let width = right - left;
    if !(width.is_finite() && width > 0.0) {
        return None;
    }
    let steps = 120;
    let xs: Vec<f64> = (0..=steps)
        .map(|step| left + width * (0.2 + 0.6 * step as f64 / steps as f64))
        .collect();
    let counts: Vec<usize> = xs
        .iter()
        .map(|&x| {
            lines
                .iter()
                .filter(|line| {
                    !crosses(line, x)
                        && line.iter().any(|p| p.u1 <= x)
                        && line.iter().any(|p| p.u0 >= x)
                })
                .count()
        })
        .collect();
    let best = counts.iter().copied().max()?;
    if best < MIN_COLUMN_LINES {
        return None;
    }
    // The middle of the first stretch of best positions (one gutter, not two).
    let first = counts.iter().position(|c| *c == best)?;
    let len = counts[first..].iter().take_while(|c| **c == best).count();
    let last = first + len.saturating_sub(1);
    Some((xs.get(first)? + xs.get(last)?) / 2.0)
}

fn flush_block<'r>(
    block: &mut Vec<Vec<Placed<'r>>>,
    gutter: f64,
    depth: usize,
    out: &mut Vec<Vec<Placed<'r>>>,
) {
    let lines = std::mem::take(block);
    let (mut left, mut right): (Vec<Vec<Placed>>, Vec<Vec<Placed>>) = (Vec::new(), Vec::new());
    for line in &lines {
        let (l, r): (Vec<&Placed>, Vec<&Placed>) = line.iter().partition(|p| p.u1 <= gutter);
        if !l.is_empty() {
            left.push(l.into_iter().copied().collect());
        }
        if !r.is_empty() {
            right.push(r.into_iter().copied().collect());
        }
    }
    if is_column(&left, depth) && is_column(&right, depth) {
        out.extend(order_columns(left, depth + 1));
        out.extend(order_columns(right, depth + 1));
    } else {
        out.extend(lines);
    }
}

/// Whether line parts form a text column, or several side by side (the right part of a
/// three-column page).
fn is_column(parts: &[Vec<Placed>], depth: usize) -> bool {
    if is_text_column(parts) {
        return true;
    }
    if depth + 1 >= MAX_COLUMN_DEPTH || parts.len() < 2 * MIN_COLUMN_LINES {
        return false;
    }
    let Some(gutter) = find_gutter(parts) else {
        return false;
    };
    let (mut left, mut right): (Vec<Vec<Placed>>, Vec<Vec<Placed>>) = (Vec::new(), Vec::new());
    for line in parts.iter().filter(|line| !crosses(line, gutter)) {
        let (l, r): (Vec<Placed>, Vec<Placed>) = line.iter().partition(|p| p.u1 <= gutter);
        if !l.is_empty() {
            left.push(l);
        }
        if !r.is_empty() {
            right.push(r);
        }
    }
    is_column(&left, depth + 1) && is_column(&right, depth + 1)
}

/// Whether these line parts look like a column of running text: enough lines, most of
/// them dense (no table-like gaps) and spanning at least half the column's width.
fn is_text_column(parts: &[Vec<Placed>]) -> bool {
    if parts.len() < MIN_COLUMN_LINES {
        return false;
    }
    let start = parts
        .iter()
        .flatten()
        .map(|p| p.u0)
        .fold(f64::INFINITY, f64::min);
    let end = parts
        .iter()
        .flatten()
        .map(|p| p.u1)
        .fold(f64::NEG_INFINITY, f64::max);
    let column = end - start;
    let mut widths: Vec<f64> = parts
        .iter()
        .map(|line| {
            let a = line.iter().map(|p| p.u0).fold(f64::INFINITY, f64::min);
            let b = line.iter().map(|p| p.u1).fold(f64::NEG_INFINITY, f64::max);
            b - a
        })
        .collect();
    widths.sort_by(f64::total_cmp);
    let median = widths.get(widths.len() / 2).copied().unwrap_or(0.0);
    let dense = parts.iter().filter(|line| is_dense(line)).count();
    column > 0.0 && median >= 0.5 * column && dense * 10 >= parts.len() * 7
}

/// Whether a line part reads as prose: no gap wider than an em between its runs (table
/// cells are set apart further).
fn is_dense(line: &[Placed]) -> bool {
    let mut reached = f64::NEG_INFINITY;
    for item in line {
        if reached.is_finite() && item.u0 - reached > item.run.size {
            return false;
        }
        reached = reached.max(item.u1);
    }
    true
}

fn join_line(line: Vec<Placed>) -> String {
    let mut text = String::new();
    let mut cursor: Option<(f64, f64, f64, &str)> = None; // (u0, u1 reached, size, text)
    for item in &line {
        let size = item.run.size;
        if let Some((prev_u0, reached, prev_size, prev_text)) = cursor {
            let em = size.min(prev_size);
            let duplicate = prev_text == item.run.text && (item.u0 - prev_u0).abs() < 0.3 * em;
            if duplicate {
                continue;
            }
            let gap = item.u0 - reached;
            let apart = gap > SPACE_GAP_EM * em || gap < -0.3 * em;
            if apart && !text.ends_with(' ') && !item.run.text.starts_with(' ') {
                text.push(' ');
            }
        }
        text.push_str(&item.run.text);
        let reached = cursor.map_or(item.u1, |c| c.1.max(item.u1));
        cursor = Some((item.u0, reached, size, &item.run.text));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, x: f64, y: f64, width: f64) -> Run {
        Run {
            text: text.to_string(),
            start: (x, y),
            end: (x + width, y),
            dir: (1.0, 0.0),
            size: 10.0,
        }
    }

    #[test]
    fn sorts_lines_top_down_and_cells_left_right() {
        let runs = vec![
            run("b2", 200.0, 680.0, 10.0),
            run("a1", 100.0, 700.0, 10.0),
            run("b1", 100.0, 680.0, 10.0),
            run("a2", 200.0, 701.0, 10.0),
        ];
        assert_eq!(layout(&runs), "a1 a2\nb1 b2");
    }

    #[test]
    fn joins_touching_runs_without_space() {
        let runs = vec![
            run("Hel", 100.0, 700.0, 15.0),
            run("lo", 115.2, 700.0, 10.0),
        ];
        assert_eq!(layout(&runs), "Hello");
    }

    #[test]
    fn drops_fake_bold_duplicates() {
        let runs = vec![
            run("Bold", 100.0, 700.0, 20.0),
            run("Bold", 100.4, 700.0, 20.0),
        ];
        assert_eq!(layout(&runs), "Bold");
    }

    #[test]
    fn layout_keeps_every_run_on_random_pages() {
        use crate::testutil::{self, Rng};
        let pieces: Vec<&str> = testutil::TEXT_PIECES
            .iter()
            .copied()
            .filter(|p| !p.contains(['\n', '\r']))
            .collect();
        let coordinate = |rng: &mut Rng| match rng.below(12) {
            0 => *rng.pick(testutil::EDGE_F64),
            _ => rng.below(800) as f64 + rng.below(100) as f64 / 100.0,
        };
        let mut rng = Rng(0x1A70_0000_0000_0001);
        for _ in 0..300 {
            let runs: Vec<Run> = (0..rng.size(120))
                .map(|_| {
                    let (x, y) = (coordinate(&mut rng), coordinate(&mut rng));
                    let width = rng.below(60) as f64;
                    let angle = match rng.below(4) {
                        0 => rng.below(360) as f64,
                        _ => 90.0 * rng.below(4) as f64,
                    }
                    .to_radians();
                    let dir = (angle.cos(), angle.sin());
                    let text = testutil::random_text(&mut rng, &pieces, 5);
                    Run {
                        text: if text.is_empty() {
                            "w".to_string()
                        } else {
                            text
                        },
                        start: (x, y),
                        end: (x + width * dir.0, y + width * dir.1),
                        dir,
                        size: *rng.pick(&[1.0, 9.0, 10.0, 12.0, 24.0, 0.001, f64::MAX]),
                    }
                })
                .collect();
            let text = layout(&runs);
            assert!(text.lines().count() <= runs.len(), "{text:?}");
            for run in &runs {
                assert!(
                    text.contains(&run.text),
                    "{:?} lost from {text:?}",
                    run.text
                );
            }
        }
    }
}
