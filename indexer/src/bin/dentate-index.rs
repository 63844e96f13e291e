//! `dentate-index PROFILE_DIR --index INDEX_DIR [--json] [--gold GOLD_DIR]`: index (or update the index
//! of) a profile folder.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use dentate_qdrant::cli::{Backend, BackendArgs};
use indexer::watch::{Pass, Trigger, WatchOptions};
use indexer::{IndexOptions, Progress, RunSummary, StageStatus};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Index a home folder ("profile") into atomic units for Dentate search.
///
/// Re-running on the same profile updates the index incrementally: unchanged files are
/// not read again, changed files are re-converted, deleted files leave the index.
///
/// Exit status: 0 when every file was indexed or skipped on purpose, 2 when the run
/// completed but some files failed (each listed with its reason), 1 when the run could
/// not complete, 130 when Ctrl-C or SIGTERM stopped it (what was done is kept).
#[derive(Debug, Parser)]
#[command(name = "dentate-index", version)]
struct Cli {
    /// The profile folder to index.
    profile: PathBuf,
    /// Where the index lives (created if missing).
    #[arg(long, short = 'i')]
    index: PathBuf,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Conversion threads (default: number of cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Give up on a single file after this many seconds.
    #[arg(long, default_value_t = 120)]
    file_timeout: u64,
    /// Commit (make files searchable) at least this often, in seconds.
    #[arg(long, default_value_t = 10)]
    commit_interval: u64,
    /// Model folder filled by scripts/fetch-models (default: $DENTATE_MODELS, ./models,
    /// or models/ of the checkout the binary was built in).
    #[arg(long)]
    models: Option<PathBuf>,
    /// Skip dense embeddings (lexical search only).
    #[arg(long)]
    no_embed: bool,
    /// A text longer than the model's 256 tokens is embedded as overlapping windows, at
    /// most this many (spread over all of it), so its end is found by meaning too. 1
    /// embeds its first window only: about half the embedding time on long documents,
    /// and their later pages found by words alone. A change re-embeds the long texts
    /// on the next run (the others' vectors are kept).
    #[arg(long, default_value_t = index::vector::DEFAULT_TEXT_WINDOWS as u64,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    text_windows: u64,
    /// The form of MiniLM texts are embedded with: `minilm-q8` (the int8 graph
    /// scripts/fetch-models makes; the default when it exists) or `minilm` (the packaged
    /// graph, float32 compute, about 3x slower). It holds for this run (and watch mode):
    /// a run with another model, or without the option, embeds every text again.
    /// Questions are embedded with the question graph either way.
    #[arg(long, value_name = "MODEL",
          value_parser = clap::builder::PossibleValuesParser::new(
              indexer::embed::TextModel::CHOICES.map(|(name, _)| name)))]
    text_model: Option<String>,
    /// Skip OCR of images (and of video frames).
    #[arg(long)]
    no_ocr: bool,
    /// Skip speech recognition and video frames (audio/video keep their metadata unit).
    #[arg(long)]
    no_media: bool,
    /// A CLIP-style model folder of your own (vision.onnx, text.onnx, tokenizer.json,
    /// preprocessor_config.json; none ships): images also get an image–text embedding.
    /// Default: $DENTATE_CLIP.
    #[arg(long, value_name = "DIR")]
    clip: Option<PathBuf>,
    /// Speech recogniser: `base` (Whisper base, multilingual, language detected per
    /// window) or `tiny.en` (English only, about twice as fast).
    #[arg(long, default_value = "base", value_parser = ["base", "tiny.en"])]
    asr: String,
    /// Prompt Whisper with the profile's names (people of contacts, mail and calendars,
    /// frequent proper nouns): more names heard right, at about 2.5× the transcription
    /// time and with coarser speech segments. Switching this redoes the speech of every
    /// audio/video file once; a changed vocabulary alone does not.
    #[arg(long)]
    speech_prompt: bool,
    /// Give up on analysing one audio/video file after this many seconds.
    #[arg(long, default_value_t = 600)]
    media_timeout: u64,
    /// HippoCamp "Gold" folder: one parsed-text JSON per source file
    /// (`{"file_info": {"file_path": …}, "summary": …, "segments": [{"content", "page" |
    /// "start"/"end"}]}`), read recursively. A Gold file matched to a profile file (by
    /// `file_path`, with or without the profile folder as first component, else by unique
    /// file name) replaces that file's converted units with one unit per segment plus its
    /// summary; editing a Gold file re-indexes its file on the next run. Unmatched and
    /// invalid Gold files are reported in the summary, never fatal.
    #[arg(long, value_name = "GOLD_DIR")]
    gold: Option<PathBuf>,
    /// After the initial run, keep following the profile: each burst of file-system
    /// changes is indexed within seconds (only what changed is converted; renames move).
    /// One summary line per pass (`--json`: one JSON object per line). Stops cleanly on
    /// SIGINT/SIGTERM (a second SIGINT exits at once; the index stays consistent).
    #[arg(long)]
    watch: bool,
    /// Watch mode: a burst of changes ends after this many milliseconds without events.
    #[arg(long, default_value_t = 300, value_name = "MS")]
    debounce_ms: u64,
    /// A FileGram behavioural trace (`events.json`: a JSON array of events) to add to the
    /// index's activity log after the run; repeatable. Paths are mapped onto the profile;
    /// unknown event types are kept, malformed events reported; re-importing adds nothing.
    /// The profile's `.local/share/recently-used.xbel` is imported on every run.
    #[arg(long, value_name = "EVENTS_JSON")]
    import_trace: Vec<PathBuf>,
    /// With `--backend qdrant`: sync the index folder as it is into Qdrant, without
    /// walking the profile (e.g. to move an existing embedded index to Qdrant).
    #[arg(long, conflicts_with = "watch")]
    sync_only: bool,
    /// With `--backend qdrant`: after the sync, wait until Qdrant has built its vector
    /// indexes (the collection is green; a bulk sync leaves that work to the server).
    #[arg(long)]
    wait_indexed: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Skipped paths listed per category in the text summary.
const SKIPPED_SHOWN: usize = 5;

/// The bar, and the recordings heard so far.
struct Bar(ProgressBar, std::sync::Mutex<indexer::Hearing>);

impl Progress for Bar {
    fn recordings(&self, files: usize, bytes: u64) {
        self.1
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .start(files, bytes);
    }

    fn heard(&self, path: &str, audio_seconds: f64, bytes: u64) {
        let mut hearing = self.1.lock().unwrap_or_else(|e| e.into_inner());
        hearing.heard(audio_seconds, bytes);
        self.0.set_message(format!(
            "heard {} ({})",
            shorten(path, 36),
            hearing.status()
        ));
    }

    fn planned(&self, walked: usize, to_convert: usize) {
        self.0.set_length(to_convert as u64);
        self.0
            .set_message(format!("{walked} files found, {to_convert} to convert"));
    }

    fn file_done(&self, path: &str) {
        self.0.inc(1);
        self.0.set_message(shorten(path, 60));
    }

    fn embedding(&self, files: usize) {
        self.0.set_position(0);
        self.0.set_length(files as u64);
        self.0.set_message("embedding");
    }

    fn file_embedded(&self, path: &str) {
        self.0.inc(1);
        self.0
            .set_message(format!("embedding {}", shorten(path, 50)));
    }
}

fn shorten(path: &str, max: usize) -> String {
    let count = path.chars().count();
    if count <= max {
        return path.to_string();
    }
    let tail: String = path.chars().skip(count - (max - 1)).collect();
    format!("…{tail}")
}

/// Runs the command; an error is one line (or a few: its causes) on stderr and exit
/// status 1. A storage problem (a full disk, a read-only or vanished index folder) is
/// named with its path. `DENTATE_DEBUG=1` adds the error's debug form (with a
/// backtrace when `RUST_BACKTRACE` is set); without it the output never changes with
/// `RUST_BACKTRACE`.
fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            let root: &(dyn std::error::Error + 'static) = error.as_ref();
            if let Some(line) = indexer::disk::storage_problem(root, &cli.index) {
                eprintln!("error: {line}");
                eprintln!("  (the failure was: {error:#})");
            } else {
                eprintln!("error: {error:#}");
            }
            if std::env::var_os("DENTATE_DEBUG").is_some_and(|v| v != "0") {
                eprintln!("{error:?}");
            }
            std::process::ExitCode::from(1)
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<()> {
    indexer::memory::limit_arenas();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("DENTATE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error")),
        )
        .with_writer(std::io::stderr)
        .init();

    let mut options = IndexOptions::new(&cli.profile, &cli.index);
    if let Some(threads) = cli.threads {
        options.threads = threads.max(1);
    }
    options.file_timeout = Duration::from_secs(cli.file_timeout.max(1));
    options.commit_interval = Duration::from_secs(cli.commit_interval);
    options.embed = !cli.no_embed;
    options.text_windows = cli.text_windows as usize;
    options.ocr = !cli.no_ocr;
    options.media = !cli.no_media;
    options.asr = indexer::media::AsrModel::parse(&cli.asr).unwrap_or_default();
    options.speech_prompt = cli.speech_prompt;
    options.clip_dir = cli
        .clip
        .clone()
        .or_else(|| std::env::var_os("DENTATE_CLIP").map(PathBuf::from));
    options.media_timeout = Duration::from_secs(cli.media_timeout.max(1));
    if let Some(models) = &cli.models {
        options.models_dir = models.clone();
    }
    if let Some(name) = &cli.text_model {
        let form = indexer::embed::TextModel::parse(name)
            .ok_or_else(|| anyhow::anyhow!("unknown text model {name}"))?;
        let graph = form.graph_path(&options.models_dir);
        if options.embed && !graph.is_file() {
            anyhow::bail!(
                "--text-model {name}: {} is missing (run scripts/fetch-models)",
                graph.display()
            );
        }
        options.text_model = Some(form);
    }

    options.gold_dir = cli.gold.clone();
    if cli.sync_only {
        if cli.backend.backend != Backend::Qdrant {
            anyhow::bail!("--sync-only needs --backend qdrant (it syncs the index into Qdrant)");
        }
        let synced = sync_to_qdrant(cli)?;
        if cli.json {
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({ "qdrant": synced }))?
            );
        } else {
            print_synced(&synced);
        }
        return Ok(());
    }
    if cli.watch {
        return watch(cli, &options);
    }

    // Ctrl-C (or SIGTERM) ends the run at the next batch of files or of texts to embed,
    // with what is done committed and the summary printed.
    options.stop = Some(stop_on_signals()?);

    let bar = progress_bar();
    bar.enable_steady_tick(Duration::from_millis(200));
    let summary =
        indexer::run(&options, &Bar(bar.clone(), Default::default())).with_context(|| {
            format!(
                "indexing {} into {} failed",
                cli.profile.display(),
                cli.index.display()
            )
        })?;
    bar.finish_and_clear();
    let imports = indexer::activity_import::import_activity(&cli.index, &cli.import_trace)
        .context("importing activity into the index failed")?;
    let synced = match cli.backend.backend {
        // A stopped run is not synced: the user asked for the process to end.
        Backend::Qdrant if !summary.interrupted => Some(sync_to_qdrant(cli)?),
        _ => None,
    };

    if cli.json {
        let mut value = serde_json::to_value(&summary)?;
        if let (Some(synced), Some(object)) = (&synced, value.as_object_mut()) {
            object.insert("qdrant".to_string(), synced.clone());
        }
        if let Some(object) = value.as_object_mut() {
            object.insert("imports".to_string(), serde_json::to_value(&imports)?);
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print_summary(&summary);
        imports
            .iter()
            .flat_map(|r| r.lines())
            .for_each(|l| println!("{l}"));
        if let Some(synced) = &synced {
            print_synced(synced);
        }
    }
    if summary.interrupted {
        // Stopped by a signal; what was done is committed and the next run goes on.
        std::process::exit(EXIT_INTERRUPTED);
    }
    if summary.files.failed > 0 {
        // The run completed, but some files could not be indexed (listed above).
        std::process::exit(EXIT_SOME_FILES_FAILED);
    }
    Ok(())
}

/// The text lines of a Qdrant sync.
fn print_synced(synced: &serde_json::Value) {
    println!(
        "qdrant {} collection {:?} profile {:?}: {} files, {} written, {} unchanged, {} removed; {} unit points ({:.2} s)",
        synced["url"].as_str().unwrap_or_default(),
        synced["collection"].as_str().unwrap_or_default(),
        synced["profile"].as_str().unwrap_or_default(),
        synced["files"],
        synced["changed"],
        synced["unchanged"],
        synced["removed"],
        synced["units_written"],
        synced["seconds"].as_f64().unwrap_or_default()
    );
    if let Some(seconds) = synced["indexed_after_seconds"].as_f64() {
        println!("qdrant: vector indexes built {seconds:.2} s after the sync");
    } else if synced["indexing_paused"].as_bool() == Some(true) {
        println!("qdrant: a bulk sync (HNSW indexing paused while writing); the server builds its vector indexes now, queries are exact but slower until it is done (--wait-indexed waits)");
    }
}

/// One line on stdout; watch mode goes on when nobody reads it any more.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// A flag that SIGINT and SIGTERM raise; a second signal while stopping exits at once
/// with [`EXIT_INTERRUPTED`].
fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, EXIT_INTERRUPTED, stop.clone())?;
        signal_hook::flag::register(signal, stop.clone())?;
    }
    Ok(stop)
}

/// `--watch`: passes until SIGINT/SIGTERM.
fn watch(cli: &Cli, options: &IndexOptions) -> anyhow::Result<()> {
    let stop = stop_on_signals()?;
    let timing = WatchOptions {
        debounce: Duration::from_millis(cli.debounce_ms.max(1)),
        ..WatchOptions::default()
    };
    if !cli.json {
        eprintln!(
            "watching {} (index {}); stop with Ctrl-C",
            cli.profile.display(),
            cli.index.display()
        );
    }
    let mut on_pass = |pass: &Pass| match &pass.result {
        Err(error) => eprintln!("pass failed ({:?}): {error:#}; retrying", pass.trigger),
        Ok(summary) => {
            // Traces once, after the initial run; recently-used.xbel after every pass.
            let traces: &[PathBuf] = if pass.trigger == Trigger::Start {
                &cli.import_trace
            } else {
                &[]
            };
            let imports = indexer::activity_import::import_activity(&cli.index, traces)
                .unwrap_or_else(|error| {
                    eprintln!("importing activity failed: {error:#}");
                    Vec::new()
                });
            let synced = match cli.backend.backend {
                Backend::Embedded => None,
                Backend::Qdrant => match sync_to_qdrant(cli) {
                    Ok(synced) => Some(synced),
                    Err(error) => {
                        eprintln!("{error:#}");
                        None
                    }
                },
            };
            if cli.json {
                let mut value = serde_json::to_value(summary).unwrap_or_default();
                if let Some(object) = value.as_object_mut() {
                    object.insert("trigger".into(), format!("{:?}", pass.trigger).into());
                    object.insert(
                        "latency_ms".into(),
                        (pass.latency.as_secs_f64() * 1000.0).into(),
                    );
                    if let Some(synced) = synced {
                        object.insert("qdrant".into(), synced);
                    }
                    object.insert(
                        "imports".into(),
                        serde_json::to_value(&imports).unwrap_or_default(),
                    );
                }
                say(&value.to_string());
            } else if pass.trigger == Trigger::Start {
                print_summary(summary);
                imports.iter().flat_map(|r| r.lines()).for_each(|l| say(&l));
            } else {
                say(&format!(
                    "{} {:?}: {} converted, {} moved, {} removed, {} unchanged; events {:?} ({:.2} s after the first change)",
                    chrono::Local::now().format("%H:%M:%S"),
                    pass.trigger,
                    summary.converted,
                    summary.moved,
                    summary.removed,
                    summary.unchanged,
                    summary.activity,
                    pass.latency.as_secs_f64()
                ));
            }
        }
    };
    indexer::watch::watch(options, &timing, &indexer::NoProgress, &stop, &mut on_pass)
        .with_context(|| format!("cannot watch {}", cli.profile.display()))?;
    if !cli.json {
        eprintln!("stopped; the index is consistent");
    }
    Ok(())
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
fn progress_bar() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Mirrors the finished local index into Qdrant; the summary as JSON.
fn sync_to_qdrant(cli: &Cli) -> anyhow::Result<serde_json::Value> {
    let handle = index::IndexHandle::open(&cli.index)
        .with_context(|| format!("cannot open index {}", cli.index.display()))?;
    let config = cli.backend.qdrant_config(&handle.info.profile_root);
    let bar = progress_bar();
    let synced = dentate_qdrant::sync(&handle, &config, |p| {
        bar.set_length(p.files_total as u64);
        bar.set_position(p.files_done as u64);
        bar.set_message(format!("qdrant {}", shorten(&p.path, 50)));
    })
    .with_context(|| {
        format!(
            "syncing the index into Qdrant at {} (collection {:?}) failed; the local index is complete, re-run to retry",
            config.url, config.collection
        )
    })?;
    bar.finish_and_clear();
    let mut indexed_after = None;
    if cli.wait_indexed {
        let started = std::time::Instant::now();
        let green = dentate_qdrant::wait_indexed(&config, Duration::from_secs(24 * 3600))
            .context("waiting for Qdrant to build its indexes failed")?;
        indexed_after = green.then(|| started.elapsed().as_secs_f64());
    }
    Ok(serde_json::json!({
        "indexed_after_seconds": indexed_after,
        "url": config.url,
        "collection": config.collection,
        "profile": config.profile,
        "files": synced.files,
        "changed": synced.changed,
        "unchanged": synced.unchanged,
        "removed": synced.removed,
        "units_written": synced.units_written,
        "indexing_paused": synced.indexing_paused,
        "seconds": synced.elapsed.as_secs_f64(),
    }))
}

/// Exit status of a run that completed with some files failed (1 is a run that could not
/// complete).
const EXIT_SOME_FILES_FAILED: i32 = 2;

/// Exit status of a run stopped by SIGINT/SIGTERM (the shell's 128 + SIGINT).
const EXIT_INTERRUPTED: i32 = 130;

/// Writes the text summary of a run.
fn write_summary(out: &mut impl std::io::Write, summary: &RunSummary) -> std::io::Result<()> {
    writeln!(
        out,
        "indexed {} files, {} skipped, {} failed; {} units ({:.2} s)",
        summary.files.indexed,
        summary.files.skipped,
        summary.files.failed,
        summary.units,
        summary.seconds
    )?;
    writeln!(
        out,
        "this run: {} converted, {} unchanged, {} touched (same content), {} moved, {} removed{}",
        summary.converted,
        summary.unchanged,
        summary.touched,
        summary.moved,
        summary.removed,
        if summary.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    )?;
    if !summary.activity.is_empty() {
        let events: Vec<String> = summary
            .activity
            .iter()
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        writeln!(out, "activity: {}", events.join(", "))?;
    }
    let embedding = &summary.embedding;
    if embedding.files_of_another_model > 0 {
        writeln!(
            out,
            "embeddings: {} files embedded again with {} (their vectors were another model's)",
            embedding.files_of_another_model, embedding.model
        )?;
    }
    match embedding.status {
        StageStatus::Done => writeln!(
            out,
            "embeddings ({}): {} units embedded ({} model windows), {} reused, coverage {:.1}% ({:.1} s)",
            embedding.model,
            embedding.units_embedded,
            embedding.windows_embedded,
            embedding.units_reused,
            embedding.coverage * 100.0,
            embedding.seconds
        )?,
        status => writeln!(
            out,
            "embeddings {status}: {}; coverage {:.1}%",
            embedding.message.as_deref().unwrap_or("no reason given"),
            embedding.coverage * 100.0
        )?,
    }
    let gold = &summary.gold;
    if gold.matched + gold.unmatched + gold.invalid > 0 {
        writeln!(
            out,
            "gold: {} matched, {} unmatched, {} invalid",
            gold.matched, gold.unmatched, gold.invalid
        )?;
        if !gold.unmatched_files.is_empty() {
            writeln!(out, "  unmatched: {}", gold.unmatched_files.join(", "))?;
        }
        for warning in &gold.warnings {
            writeln!(out, "  warning: {warning}")?;
        }
    }
    let ocr = &summary.ocr;
    match ocr.status {
        StageStatus::Done => writeln!(out,
            "ocr: {} images and {} image-only PDF pages read, {} text lines, {} images tagged ({:.1} s of worker time, tags {:.1} s)",
            ocr.images, ocr.pages, ocr.lines, ocr.tagged, ocr.seconds, ocr.tag_seconds
        )?,
        StageStatus::Unused => {}
        status => writeln!(out,
            "ocr {status}: {}",
            ocr.message.as_deref().unwrap_or("no reason given")
        )?,
    }
    if ocr.carried > 0 {
        writeln!(
            out,
            "ocr: {} files converted again kept their earlier text (same bytes, same models)",
            ocr.carried
        )?;
    }
    let clip = &summary.clip;
    match clip.status {
        StageStatus::Done => writeln!(
            out,
            "clip ({}): {} images embedded ({:.1} s)",
            clip.model, clip.images, clip.seconds
        )?,
        StageStatus::Failed => writeln!(
            out,
            "clip failed: {}",
            clip.message.as_deref().unwrap_or("no reason given")
        )?,
        _ => {}
    }
    let media = &summary.media;
    match media.status {
        StageStatus::Done => writeln!(out,
            "media: {} files, {:.0} s of audio → {} speech segments, {:.0} s of video → {} screen-text runs ({} frames decoded, {} read); worker time: decode {:.1} s, VAD {:.1} s, Whisper {:.1} s (encoder {:.1} s), frame OCR {:.1} s, frame tags {:.1} s",
            media.files,
            media.audio_seconds,
            media.speech_units,
            media.video_seconds,
            media.screen_units,
            media.frames_decoded,
            media.frames_ocr,
            media.decode_seconds,
            media.vad_seconds,
            media.asr_encoder_seconds + media.asr_decoder_seconds,
            media.asr_encoder_seconds,
            media.ocr_seconds,
            media.tag_seconds
        )?,
        StageStatus::Unused => {}
        status => writeln!(out,
            "media {status}: {}",
            media.message.as_deref().unwrap_or("no reason given")
        )?,
    }
    if media.carried > 0 {
        writeln!(out, "media: {} files converted again kept their earlier speech and screen text (same bytes, same models)", media.carried)?;
    }
    if let Some(prompt) = &media.prompt {
        writeln!(
            out,
            "speech prompt: {} names of the profile, {} tokens (prompt {}; read in {:.1} s)",
            prompt.names, prompt.tokens, prompt.hash, prompt.seconds
        )?;
    }
    if !summary.units_by_kind.is_empty() {
        let kinds: Vec<String> = summary
            .units_by_kind
            .iter()
            .map(|(kind, count)| format!("{kind} {count}"))
            .collect();
        writeln!(out, "units by kind: {}", kinds.join(", "))?;
    }
    print_grouped("skipped", &summary.skipped, SKIPPED_SHOWN);
    // Indexed in part: every file is listed with what was kept.
    print_grouped("truncated", &summary.truncated, usize::MAX);
    // Every failure is listed.
    print_grouped("failures", &summary.failures, usize::MAX);
    Ok(())
}

/// Prints the text summary of a run; a closed stdout is not an error.
fn print_summary(summary: &RunSummary) {
    let _ = write_summary(&mut std::io::stdout().lock(), summary);
}

/// Paths grouped by category, at most `shown` per category.
fn print_grouped(title: &str, entries: &[indexer::Failure], shown: usize) {
    if entries.is_empty() {
        return;
    }
    let mut by_category: BTreeMap<&str, Vec<&indexer::Failure>> = BTreeMap::new();
    for entry in entries {
        by_category.entry(&entry.category).or_default().push(entry);
    }
    println!("{title}:");
    for (category, entries) in by_category {
        println!("  {category} ({}):", entries.len());
        for entry in entries.iter().take(shown) {
            println!("    {}: {}", entry.path, entry.reason);
        }
        if entries.len() > shown {
            println!(
                "    … and {} more (--json lists all)",
                entries.len() - shown
            );
        }
    }
}
