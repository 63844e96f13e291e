//! Latency and throughput of a running daemon's `POST /retrieve` with questions it has
//! never seen: every question is sent once, so no query embedding is ever cached.
//!
//! Usage: `dentate-qps --http 127.0.0.1:8080 [--clients 1] [--seconds 20]
//! [--mode hybrid|lexical|dense|mixed] [--top-k 10] [--seed 1] [--skip N]
//! [--words-from HOST:PORT] [--no-snippets]`
//!
//! Questions are made from the words of the indexed file names (`/api/list_files`): a
//! template and two words, deterministic from the seed, all distinct. `--words-from`
//! takes the file names from another Dentate daemon, so that a retriever without that
//! route (the official HippoCamp server) gets the same questions as Dentate. Two daemons over
//! the same index measured with the same seed receive the same questions; `--skip N`
//! starts further along the sequence (for a second run against the same daemon). Prints
//! one line: requests, errors, requests/s, p50/p90/p99 (client wall time).
//! `--no-snippets` asks for replies without highlighted snippets (`"snippets": false`).

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use benches::load::indexed_paths;
use benches::Rng;

const TEMPLATES: [&str; 8] = [
    "where is the {a} about {b}",
    "what did I note on {a} and {b}",
    "when was the {a} {b} meeting",
    "find the {a} for {b}",
    "how much was the {a} {b}",
    "who sent the {a} about {b}",
    "show me {a} from {b}",
    "what happened with {a} {b}",
];

struct Options {
    http: SocketAddr,
    clients: usize,
    seconds: u64,
    mode: String,
    top_k: usize,
    seed: u64,
    skip: usize,
    words_from: Option<SocketAddr>,
    snippets: bool,
}

fn options() -> anyhow::Result<Options> {
    let mut options = Options {
        http: "127.0.0.1:8080".parse()?,
        clients: 1,
        seconds: 20,
        mode: "hybrid".into(),
        top_k: 10,
        seed: 1,
        skip: 0,
        words_from: None,
        snippets: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--http" => options.http = value("--http")?.parse()?,
            "--clients" => options.clients = value("--clients")?.parse::<usize>()?.max(1),
            "--seconds" => options.seconds = value("--seconds")?.parse()?,
            "--mode" => options.mode = value("--mode")?,
            "--top-k" => options.top_k = value("--top-k")?.parse()?,
            "--seed" => options.seed = value("--seed")?.parse()?,
            "--skip" => options.skip = value("--skip")?.parse()?,
            "--words-from" => options.words_from = Some(value("--words-from")?.parse()?),
            "--no-snippets" => options.snippets = false,
            "-h" | "--help" => {
                println!("usage: dentate-qps --http HOST:PORT [--clients N] [--seconds S] [--mode hybrid|lexical|dense|mixed] [--top-k K] [--seed S] [--skip N] [--words-from HOST:PORT] [--no-snippets]");
                std::process::exit(0);
            }
            other => bail!("unknown option {other}"),
        }
    }
    if !["hybrid", "lexical", "dense", "mixed"].contains(&options.mode.as_str()) {
        bail!("unknown mode {:?}", options.mode);
    }
    Ok(options)
}

/// `count` distinct questions from the words of the file names.
fn questions(paths: &[String], seed: u64, count: usize) -> Vec<String> {
    let words: Vec<String> = paths
        .iter()
        .flat_map(|p| p.split(|c: char| !c.is_alphabetic()))
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut rng = Rng::new(seed);
    let mut seen = BTreeSet::new();
    let mut out = Vec::with_capacity(count);
    let limit = (words.len() * words.len() * TEMPLATES.len()).min(count);
    while out.len() < limit {
        let template = TEMPLATES[rng.below(TEMPLATES.len())];
        let a = &words[rng.below(words.len())];
        let b = &words[rng.below(words.len())];
        let question = template.replace("{a}", a).replace("{b}", b);
        if seen.insert(question.clone()) {
            out.push(question);
        }
    }
    out
}

fn main() -> anyhow::Result<()> {
    let options = options()?;
    let paths = indexed_paths(options.words_from.unwrap_or(options.http))?;
    // Enough for the fastest runs seen (a few thousand requests/s).
    let wanted = options.skip + 5_000 * options.seconds.max(1) as usize;
    let all = questions(&paths, options.seed, wanted);
    anyhow::ensure!(
        all.len() > options.skip,
        "only {} distinct questions",
        all.len()
    );
    let questions = Arc::new(all[options.skip..].to_vec());
    let next = Arc::new(AtomicUsize::new(0));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let errors = Arc::new(AtomicUsize::new(0));
    let url = format!("http://{}/retrieve", options.http);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(options.seconds);
    std::thread::scope(|scope| {
        for _ in 0..options.clients {
            let (questions, next, latencies, errors) = (&questions, &next, &latencies, &errors);
            let (url, mode, top_k) = (&url, &options.mode, options.top_k);
            let snippets = options.snippets;
            scope.spawn(move || {
                let agent = ureq::Agent::new_with_defaults();
                let mut mine = Vec::new();
                while Instant::now() < deadline {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(question) = questions.get(i) else {
                        break;
                    };
                    let mode = match mode.as_str() {
                        "mixed" if i % 2 == 0 => "lexical",
                        "mixed" => "hybrid",
                        other => other,
                    };
                    let mut body =
                        serde_json::json!({"query": question, "top_k": top_k, "mode": mode});
                    if !snippets {
                        body["snippets"] = false.into();
                    }
                    let body = body.to_string();
                    let sent = Instant::now();
                    let ok = agent
                        .post(url)
                        .header("content-type", "application/json")
                        .send(&body)
                        .and_then(|mut r| r.body_mut().read_to_string())
                        .is_ok();
                    if ok {
                        mine.push(sent.elapsed().as_secs_f64() * 1000.0);
                    } else {
                        errors.fetch_add(1, Ordering::Relaxed);
                    }
                }
                latencies
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend(mine);
            });
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    let mut latencies = latencies.lock().unwrap_or_else(|p| p.into_inner()).clone();
    anyhow::ensure!(!latencies.is_empty(), "no request succeeded");
    latencies.sort_by(f64::total_cmp);
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!(
        "mode={}{} clients={} top_k={} requests={} errors={} seconds={seconds:.1} rps={:.1} p50={:.2}ms p90={:.2}ms p99={:.2}ms",
        options.mode,
        if options.snippets { "" } else { " snippets=off" },
        options.clients,
        options.top_k,
        latencies.len(),
        errors.load(Ordering::Relaxed),
        latencies.len() as f64 / seconds,
        at(0.5),
        at(0.9),
        at(0.99)
    );
    Ok(())
}
