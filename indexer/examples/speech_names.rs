//! Name recall of speech recognition with and without the profile's names prompt.
//!
//! `cargo run --release -p indexer --example speech_names -- PROFILE [MODELS] [base|tiny.en]`
//!
//! Builds the prompt as an indexing run does (`indexer::media::names_prompt` over the
//! walked profile), transcribes every audio file of the profile twice (no prompt, then
//! the prompt) and reports, per file, the words of the profile's names (≥ 3 letters,
//! case- and accent-insensitive) found in each transcript, those of them that are in
//! the file's own path (a weak reference a human can check), and the time taken.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use indexer::media::vocabulary::fold;
use indexer::media::{decode, names_prompt, AsrModel, MediaSummary, Speech};

fn words(text: &str) -> BTreeSet<String> {
    fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_string)
        .collect()
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(profile) = args.first().map(PathBuf::from) else {
        bail!("usage: speech_names PROFILE [MODELS] [base|tiny.en]");
    };
    let models = args
        .get(1)
        .map(PathBuf::from)
        .unwrap_or_else(indexer::embed::default_models_dir);
    let asr = args
        .get(2)
        .map(|a| AsrModel::parse(a).context("asr: base or tiny.en"))
        .transpose()?
        .unwrap_or_default();
    let profile = profile.canonicalize()?;
    let walked = indexer::walk::walk(&profile, None);
    let started = Instant::now();
    let (names, prompt) = names_prompt(
        &asr.dir(&models),
        walked
            .files
            .iter()
            .map(|f| (f.rel_path.as_str(), f.abs_path.as_path(), f.size)),
    )?;
    println!(
        "prompt ({:.2} s, {} of {} names): {prompt}\n",
        started.elapsed().as_secs_f64(),
        prompt.split(", ").count(),
        names.len()
    );
    let vocabulary = words(&prompt);
    let mut speech = Speech::load(&models, asr, 2)?;
    let ffmpeg = decode::Ffmpeg::new(Duration::from_secs(600));
    let audio = ["mp3", "wav", "m4a", "ogg", "flac"];
    let mut totals = [(0usize, 0usize, 0f64, 0f64); 2];
    let mut reference_total = 0;
    println!(
        "| file | names in path | found without prompt | found with prompt | s without | s with |"
    );
    println!("|---|---|---|---|---|---|");
    let mut transcripts = Vec::new();
    for file in &walked.files {
        let ext = converters::extension_of(&file.rel_path);
        if !audio.contains(&ext.as_str()) {
            continue;
        }
        let samples = ffmpeg.audio(&file.abs_path, 4 * 3600)?;
        let reference: BTreeSet<String> = words(&file.rel_path)
            .intersection(&vocabulary)
            .cloned()
            .collect();
        reference_total += reference.len();
        let mut found = Vec::new();
        let mut texts = Vec::new();
        for (i, text) in ["", prompt.as_str()].into_iter().enumerate() {
            speech.set_prompt(text)?;
            let mut stats = MediaSummary::default();
            let started = Instant::now();
            let segments = speech.transcribe(samples.clone(), &mut stats)?;
            let seconds = started.elapsed().as_secs_f64();
            let transcript = segments
                .iter()
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let hits: BTreeSet<String> = words(&transcript)
                .intersection(&vocabulary)
                .cloned()
                .collect();
            totals[i].0 += hits.len();
            totals[i].1 += hits.intersection(&reference).count();
            totals[i].2 += seconds;
            totals[i].3 += stats.asr_decoder_seconds;
            found.push((hits, seconds));
            texts.push(transcript);
        }
        let list = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>().join(" ");
        println!(
            "| {} | {} | {} | {} | {:.1} | {:.1} |",
            file.rel_path,
            list(&reference),
            list(&found[0].0),
            list(&found[1].0),
            found[0].1,
            found[1].1
        );
        transcripts.push((file.rel_path.clone(), texts));
    }
    println!(
        "\nnames found: {} without, {} with the prompt; of the {} in the file paths: {} without, {} with",
        totals[0].0, totals[1].0, reference_total, totals[0].1, totals[1].1
    );
    println!(
        "time: {:.1} s without (decoder {:.1} s), {:.1} s with the prompt (decoder {:.1} s)\n",
        totals[0].2, totals[0].3, totals[1].2, totals[1].3
    );
    for (path, texts) in transcripts {
        println!("## {path}\nwithout: {}\nwith:    {}\n", texts[0], texts[1]);
    }
    Ok(())
}
