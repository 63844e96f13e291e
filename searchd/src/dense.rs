//! Dense retrieval's query side: the text encoder for questions and a cache of their
//! embeddings. The vectors themselves are searched through the storage boundary
//! (`index::api::VectorSearch`; the embedded exact-scan store is
//! `index::embedded::EmbeddedVectors`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::{mpsc, Arc, Condvar, Mutex};

use models::embed::TextEncoder;

use crate::error::SearchError;

/// Query embeddings kept for repeated queries.
const QUERY_CACHE: usize = 512;
/// Sentence embeddings kept for the rerank stage ([`Dense::embed_many`]; the oldest
/// out first): an agent's questions about one subject bring the same candidates back
/// (1.5 KB of vector and up to 0.8 KB of text each: 12–20 MB per profile).
const SENTENCE_CACHE: usize = 8192;
/// Where the windows of a long unit start, for its window snippets
/// ([`Dense::window_start`]): finding them tokenises the whole text, which cost a third
/// of a top-60 request's time when done for every shown unit. About 250 bytes a text:
/// 2 MB at most per profile.
const WINDOW_STARTS_CACHE: usize = 8192;
/// Key → value, with insertion order for eviction.
type Cache<V> = (HashMap<String, V>, VecDeque<String>);
/// Query text → embedding.
type QueryCache = Cache<Arc<Vec<f32>>>;

/// Keeps `value` for `key`, the oldest entry making room beyond `capacity`.
fn remember<V>(cache: &mut Cache<V>, capacity: usize, key: String, value: V) {
    if cache.0.contains_key(&key) {
        return;
    }
    if cache.0.len() >= capacity {
        if let Some(oldest) = cache.1.pop_front() {
            cache.0.remove(&oldest);
        }
    }
    cache.0.insert(key.clone(), value);
    cache.1.push_back(key);
}

/// A question waiting for its embedding, and where to send it.
type Waiting = (String, mpsc::Sender<Result<Vec<f32>, String>>);

/// The texts waiting for an encoder, shared with the encoder threads.
struct Queue {
    waiting: Mutex<Lanes>,
    ready: Condvar,
}

/// Two lanes: questions are served first, and never share a run with the rerank stage's
/// sentences (a run is padded to its longest text), so a rerank's hundreds of sentences
/// never hold up another client's question.
#[derive(Default)]
struct Lanes {
    questions: VecDeque<Waiting>,
    sentences: VecDeque<Waiting>,
    closed: bool,
}

impl Lanes {
    /// The next run's texts: questions first, else sentences; `None` when closed and
    /// empty, an empty run when nothing waits yet.
    fn next_run(&mut self) -> Option<Vec<Waiting>> {
        let lane = if self.questions.is_empty() {
            &mut self.sentences
        } else {
            &mut self.questions
        };
        if lane.is_empty() {
            return if self.closed { None } else { Some(Vec::new()) };
        }
        let n = lane.len().min(MAX_QUERY_BATCH);
        Some(lane.drain(..n).collect())
    }
}

/// The query side of dense retrieval: encoder threads, the queue of questions waiting
/// for them and a cache (the vectors are the storage backend's, searched through
/// `index::api::VectorSearch`).
///
/// One encoder thread per core, each with a single-threaded session. A free encoder
/// takes **everything queued** (up to [`MAX_QUERY_BATCH`]) and embeds it in one run:
/// alone, a question is embedded at once, by itself; under load, the questions that
/// arrived while the encoders were busy share one run instead of queueing one by one
/// behind the sessions (a batch of 32 short questions costs a few single runs, not 32).
pub struct Dense {
    /// Shared by every profile of the daemon ([`Dense::share`]); the cache is not.
    pool: Arc<Pool>,
    /// The query encoders' model (`TextModel::name`).
    model: &'static str,
    /// The text model's windows (where a unit's best-scoring window starts).
    windower: models::windows::Windower,
    cache: Mutex<QueryCache>,
    sentences: Mutex<QueryCache>,
    /// Window starts by text hash and window count ([`WINDOW_STARTS_CACHE`]).
    window_starts: Mutex<Cache<Arc<Vec<usize>>>>,
}

/// The encoder threads and their queue; closed and joined when the last [`Dense`]
/// sharing it goes.
struct Pool {
    queue: Arc<Queue>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

/// Encoder sessions at most (each holds the model once).
const MAX_ENCODERS: usize = 4;
/// Questions embedded in one run at most.
pub const MAX_QUERY_BATCH: usize = 32;

impl Dense {
    /// Loads the query encoders (one per core, at most [`MAX_ENCODERS`]) and starts
    /// their threads.
    pub fn open(models_dir: &Path) -> Result<Dense, SearchError> {
        let count = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, MAX_ENCODERS);
        let encoders = (0..count)
            .map(|_| {
                TextEncoder::load_query(models_dir, 1)
                    .map_err(|e| SearchError::Unavailable(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let graph = encoders.first().map_or("none", |e| e.1);
        let model = encoders.first().map_or("none", |e| e.0.form().name);
        let windower = encoders
            .first()
            .map(|e| e.0.windower())
            .ok_or_else(|| SearchError::Unavailable("no query encoder".into()))?;
        tracing::info!("query encoder: minilm/{graph} ({count} threads)");
        let encoders = encoders.into_iter().map(|e| e.0);
        let queue = Arc::new(Queue {
            waiting: Mutex::new(Lanes::default()),
            ready: Condvar::new(),
        });
        let workers = encoders
            .into_iter()
            .enumerate()
            .map(|(i, encoder)| {
                let queue = queue.clone();
                std::thread::Builder::new()
                    .name(format!("dentate-query-encoder-{i}"))
                    .spawn(move || encode_loop(&queue, encoder))
                    .map_err(|e| SearchError::Unavailable(format!("encoder thread: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Dense {
            pool: Arc::new(Pool { queue, workers }),
            model,
            windower,
            cache: Mutex::new((HashMap::new(), VecDeque::new())),
            sentences: Mutex::new((HashMap::new(), VecDeque::new())),
            window_starts: Mutex::new((HashMap::new(), VecDeque::new())),
        })
    }

    /// The same encoders with a cache of its own (another profile's queries are
    /// neither seen nor timed through it).
    pub fn share(&self) -> Dense {
        Dense {
            pool: self.pool.clone(),
            model: self.model,
            windower: self.windower.clone(),
            cache: Mutex::new((HashMap::new(), VecDeque::new())),
            sentences: Mutex::new((HashMap::new(), VecDeque::new())),
            window_starts: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    /// Where window `window` of the `windows` of a unit's text starts (in bytes of
    /// `text`, the unit's text; windows are made over the file's name, the title and the
    /// text, see `index::vector::unit_embedding_text`), `None` when the text has no such
    /// window.
    /// A text's windows at most `windows` are the ones it was embedded as, whatever the
    /// indexer's `--text-windows` was.
    pub fn window_start(
        &self,
        path: &str,
        title: &str,
        text: &str,
        window: usize,
        windows: usize,
    ) -> Option<usize> {
        if window == 0 || window >= windows {
            // The first window starts with the text: nothing to tokenise.
            return None;
        }
        let embedded = index::vector::unit_embedding_text(path, title, text);
        let skipped = embedded.len() - text.len();
        // The starts are in the text's bytes, so the title's length is part of the key
        // (one embedded text can be a long title and a short text, or the reverse).
        let key = format!(
            "{windows}:{skipped}:{}",
            index::vector::text_hash(&embedded)
        );
        let cached = {
            let cache = self.window_starts.lock().unwrap_or_else(|p| p.into_inner());
            cache.0.get(&key).cloned()
        };
        let starts = cached.unwrap_or_else(|| {
            let starts: Arc<Vec<usize>> = Arc::new(
                self.windower
                    .windows_upto(&embedded, windows)
                    .into_iter()
                    .map(|range| range.start.saturating_sub(skipped))
                    .collect(),
            );
            let mut cache = self.window_starts.lock().unwrap_or_else(|p| p.into_inner());
            remember(&mut cache, WINDOW_STARTS_CACHE, key, starts.clone());
            starts
        });
        starts
            .get(window)
            .copied()
            .filter(|&at| at > 0 && at < text.len())
    }

    /// Starts embedding a question: a cached vector at once, else the question joins
    /// the encoders' queue and the caller goes on (the daemon runs the lexical search
    /// meanwhile) until [`Dense::finish`].
    pub fn begin(&self, query: &str) -> PendingVector {
        {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(vector) = cache.0.get(query) {
                return PendingVector::Ready(vector.clone());
            }
        }
        let (reply, answer) = mpsc::channel();
        let queue = &self.pool.queue;
        {
            let mut waiting = queue.waiting.lock().unwrap_or_else(|p| p.into_inner());
            waiting.questions.push_back((query.to_string(), reply));
        }
        queue.ready.notify_one();
        PendingVector::Queued {
            query: query.to_string(),
            answer,
        }
    }

    /// The embedding [`Dense::begin`] started (cached from now on).
    pub fn finish(&self, pending: PendingVector) -> Result<Arc<Vec<f32>>, SearchError> {
        let (query, result) = match pending {
            PendingVector::Ready(vector) => return Ok(vector),
            PendingVector::Queued { query, answer } => (query, answer.recv()),
            PendingVector::Arrived { query, result } => (query, Ok(result)),
        };
        let vector = Arc::new(
            result
                .map_err(|_| SearchError::Unavailable("the query encoder stopped".into()))?
                .map_err(SearchError::Unavailable)?,
        );
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        remember(&mut cache, QUERY_CACHE, query, vector.clone());
        Ok(vector)
    }

    /// Questions waiting for a free encoder (0 or 1 when the daemon is not saturated:
    /// the asker's own question may not have been taken yet).
    pub fn backlog(&self) -> usize {
        let waiting = self.pool.queue.waiting.lock();
        waiting.unwrap_or_else(|p| p.into_inner()).questions.len()
    }

    /// Embeddings of `texts` in their order (the rerank stage's sentences; kept in a
    /// cache of their own, [`SENTENCE_CACHE`]). Each distinct text not cached is queued
    /// once, all at once and shortest first, so the encoder threads share them out in
    /// batches of similar lengths (a batch is padded to its longest text: in queue order,
    /// 1.6× slower on SciFact's sentences).
    pub fn embed_many(&self, texts: &[String]) -> Result<Vec<Arc<Vec<f32>>>, SearchError> {
        let mut vectors: HashMap<&str, Arc<Vec<f32>>> = HashMap::new();
        {
            let cache = self.sentences.lock().unwrap_or_else(|p| p.into_inner());
            for text in texts {
                if let Some(vector) = cache.0.get(text.as_str()) {
                    vectors.insert(text, vector.clone());
                }
            }
        }
        let cached: HashSet<&str> = vectors.keys().copied().collect();
        let mut distinct: Vec<&str> = texts
            .iter()
            .map(String::as_str)
            .filter(|text| !vectors.contains_key(text))
            .collect();
        distinct.sort_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)));
        distinct.dedup();
        let queue = &self.pool.queue;
        let answers: Vec<_> = {
            let mut waiting = queue.waiting.lock().unwrap_or_else(|p| p.into_inner());
            distinct
                .iter()
                .map(|text| {
                    let (reply, answer) = mpsc::channel();
                    waiting.sentences.push_back((text.to_string(), reply));
                    answer
                })
                .collect()
        };
        queue.ready.notify_all();
        for (text, answer) in distinct.into_iter().zip(answers) {
            let vector = answer
                .recv()
                .map_err(|_| SearchError::Unavailable("the query encoder stopped".into()))?
                .map_err(SearchError::Unavailable)?;
            vectors.insert(text, Arc::new(vector));
        }
        let mut cache = self.sentences.lock().unwrap_or_else(|p| p.into_inner());
        Ok(texts
            .iter()
            .map(|text| {
                let vector = vectors.get(text.as_str()).cloned().unwrap_or_default();
                // Only new sentences are remembered (a cached one already is).
                if !cached.contains(text.as_str()) {
                    remember(&mut cache, SENTENCE_CACHE, text.clone(), vector.clone());
                }
                vector
            })
            .collect())
    }

    /// The query encoders' model name (`all-MiniLM-L6-v2-q8-questions`, …).
    pub fn model_name(&self) -> &'static str {
        self.model
    }

    /// Components of every vector (normalised to unit length).
    pub fn dimension(&self) -> usize {
        models::embed::TEXT_DIM
    }

    /// The query's embedding (cached).
    pub fn embed_query(&self, query: &str) -> Result<Arc<Vec<f32>>, SearchError> {
        self.finish(self.begin(query))
    }
}

/// A question's embedding, ready or on its way ([`Dense::begin`]).
pub enum PendingVector {
    Ready(Arc<Vec<f32>>),
    Queued {
        query: String,
        answer: mpsc::Receiver<Result<Vec<f32>, String>>,
    },
    /// Its encoder has answered (seen by [`PendingVector::is_ready`]); not cached yet.
    Arrived {
        query: String,
        result: Result<Vec<f32>, String>,
    },
}

impl PendingVector {
    /// Whether [`Dense::finish`] would return at once (the caller may do other work
    /// while it would not).
    pub fn is_ready(&mut self) -> bool {
        let PendingVector::Queued { query, answer } = self else {
            return true;
        };
        match answer.try_recv() {
            Ok(result) => {
                let query = std::mem::take(query);
                *self = PendingVector::Arrived { query, result };
                true
            }
            Err(mpsc::TryRecvError::Empty) => false,
            // The encoder stopped: finish says so.
            Err(mpsc::TryRecvError::Disconnected) => true,
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.queue
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .closed = true;
        self.queue.ready.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// An encoder thread: waits for questions, embeds all that are queued in one run, sends
/// each its vector; stops when the queue is closed and empty.
fn encode_loop(queue: &Queue, mut encoder: TextEncoder) {
    loop {
        let batch: Vec<Waiting> = {
            let mut waiting = queue.waiting.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                match waiting.next_run() {
                    None => return, // closed
                    Some(run) if run.is_empty() => {
                        waiting = queue.ready.wait(waiting).unwrap_or_else(|p| p.into_inner());
                    }
                    Some(run) => break run,
                }
            }
        };
        let texts: Vec<String> = batch.iter().map(|(text, _)| text.clone()).collect();
        let result = encoder
            .embed_with(&texts, texts.len(), true)
            .map_err(|e| e.to_string())
            .and_then(|vectors| {
                if vectors.len() == texts.len() {
                    Ok(vectors)
                } else {
                    Err(format!(
                        "the encoder returned {} vectors for {} questions",
                        vectors.len(),
                        texts.len()
                    ))
                }
            });
        match result {
            Ok(vectors) => {
                for ((_, reply), vector) in batch.into_iter().zip(vectors) {
                    let _ = reply.send(Ok(vector));
                }
            }
            Err(message) => {
                for (_, reply) in batch {
                    let _ = reply.send(Err(message.clone()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The encoders over the checkout's models, or `None` (a skip) when they are missing.
    fn open_or_skip() -> Option<Dense> {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        if !models.join("minilm/model.onnx").exists() {
            eprintln!("skipped: models missing (run scripts/fetch-models)");
            return None;
        }
        Some(Dense::open(&models).unwrap())
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn concurrent_questions_each_get_their_own_vector() {
        let Some(dense) = open_or_skip() else {
            return;
        };
        let dense = Arc::new(dense);
        let topics = ["rent", "garden", "invoice", "train", "dentist", "choir"];
        let questions: Vec<String> = (0..48)
            .map(|i| format!("what did I note about the {} in week {i}", topics[i % 6]))
            .collect();
        // One at a time: every run is a batch of one.
        let alone: Vec<Vec<f32>> = questions
            .iter()
            .map(|q| dense.embed_query(q).unwrap().to_vec())
            .collect();
        // A cache of its own, so that every question is embedded again.
        let dense = Arc::new(dense.share());
        // 16 clients at once: runs take whatever is queued.
        let together: Vec<(usize, Vec<f32>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..16)
                .map(|t| {
                    let (dense, questions) = (dense.clone(), &questions);
                    scope.spawn(move || {
                        (t..questions.len())
                            .step_by(16)
                            .map(|i| (i, dense.embed_query(&questions[i]).unwrap().to_vec()))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        assert_eq!(together.len(), questions.len());
        for (i, vector) in together {
            let same = cosine(&vector, &alone[i]);
            assert!(
                same > 0.995,
                "question {i}: cosine {same} with its lone vector"
            );
            let other = cosine(&vector, &alone[(i + 1) % questions.len()]);
            assert!(other < same, "question {i} got another question's vector");
        }
    }

    fn waiting(text: &str) -> Waiting {
        (text.to_string(), mpsc::channel().0)
    }

    fn texts(run: Option<Vec<Waiting>>) -> Option<Vec<String>> {
        run.map(|run| run.into_iter().map(|(text, _)| text).collect())
    }

    #[test]
    fn questions_go_first_and_never_share_a_run_with_sentences() {
        let mut lanes = Lanes::default();
        assert_eq!(texts(lanes.next_run()), Some(vec![]));
        for i in 0..40 {
            lanes.sentences.push_back(waiting(&format!("s{i}")));
        }
        lanes.questions.push_back(waiting("q1"));
        lanes.questions.push_back(waiting("q2"));
        // The questions that came after 40 sentences go first, alone.
        assert_eq!(
            texts(lanes.next_run()),
            Some(vec!["q1".into(), "q2".into()])
        );
        // Then the sentences, in runs of at most MAX_QUERY_BATCH, in their order.
        let run = texts(lanes.next_run()).unwrap();
        assert_eq!(run.len(), MAX_QUERY_BATCH);
        assert_eq!(run[0], "s0");
        lanes.questions.push_back(waiting("q3"));
        assert_eq!(texts(lanes.next_run()), Some(vec!["q3".into()]));
        assert_eq!(texts(lanes.next_run()).unwrap().len(), 40 - MAX_QUERY_BATCH);
        // Closed: what waits is still served, then nothing.
        lanes.sentences.push_back(waiting("last"));
        lanes.closed = true;
        assert_eq!(texts(lanes.next_run()), Some(vec!["last".into()]));
        assert_eq!(texts(lanes.next_run()), None);
    }

    #[test]
    fn many_texts_come_back_in_their_order_with_duplicates_embedded_once() {
        let Some(dense) = open_or_skip() else {
            return;
        };
        // Lengths out of order, one text twice: each vector is its own text's.
        let texts: Vec<String> = [
            "a long sentence about the quarterly budget review and the supplier invoices",
            "dentist",
            "the choir rehearses on Thursday evenings in the church hall",
            "dentist",
        ]
        .map(String::from)
        .to_vec();
        let many = dense.embed_many(&texts).unwrap();
        assert_eq!(many.len(), texts.len());
        for (text, vector) in texts.iter().zip(&many) {
            let alone = dense.embed_query(text).unwrap();
            assert!(cosine(vector, &alone) > 0.995, "{text}");
        }
        assert_eq!(many[1], many[3]);
        assert!(cosine(&many[0], &many[2]) < 0.9);
        assert!(dense.embed_many(&[]).unwrap().is_empty());
        // Asked again, with one new text: the known ones come from the cache (the very
        // same vectors), the new one is embedded.
        let again: Vec<String> = vec![texts[2].clone(), "a new text".into(), texts[0].clone()];
        let second = dense.embed_many(&again).unwrap();
        assert!(Arc::ptr_eq(&second[0], &many[2]) && Arc::ptr_eq(&second[2], &many[0]));
        assert!(cosine(&second[1], &dense.embed_query("a new text").unwrap()) > 0.995);
    }

    #[test]
    fn window_starts_are_the_windows_of_the_embedded_text_and_found_once() {
        let Some(dense) = open_or_skip() else {
            return;
        };
        // A file name that heads the embedded text (`unit_embedding_text`).
        let path = "Garden/allotment diary.txt";
        let title = "Rain gauge log";
        let text: String = (0..400)
            .map(|day| format!("day {day}: {} mm of rain, wind from the west. ", day % 7))
            .collect();
        let embedded = index::vector::unit_embedding_text(path, title, &text);
        assert!(embedded.starts_with("Garden / allotment diary\nRain gauge log\n"));
        let skipped = embedded.len() - text.len();
        for windows in [16, 3] {
            let ranges = dense.windower.windows_upto(&embedded, windows);
            assert!(ranges.len() > 2, "{windows}: {}", ranges.len());
            for (window, range) in ranges.iter().enumerate() {
                let expected = Some(range.start.saturating_sub(skipped))
                    .filter(|&at| at > 0 && at < text.len());
                assert_eq!(
                    dense.window_start(path, title, &text, window, windows),
                    expected
                );
                if window > 0 {
                    assert!(expected.is_some_and(|at| text.is_char_boundary(at)));
                }
            }
            assert_eq!(
                dense.window_start(path, title, &text, ranges.len(), windows),
                None
            );
        }
        // One entry per text and window count; the first window needs none.
        assert_eq!(dense.window_starts.lock().unwrap().0.len(), 2);
        assert_eq!(dense.window_start(path, title, "short", 0, 1), None);
        assert_eq!(dense.window_starts.lock().unwrap().0.len(), 2);
        // Another text of the same length is another entry.
        let other = text.replace("west", "east");
        assert_eq!(other.len(), text.len());
        let _ = dense.window_start(path, title, &other, 1, 16);
        assert_eq!(dense.window_starts.lock().unwrap().0.len(), 3);
        // The same embedded text from a text that begins with its title: the same
        // windows, counted in that text's own bytes.
        let titled = format!("{title}\n{text}");
        assert_eq!(
            index::vector::unit_embedding_text(path, title, &titled),
            embedded
        );
        for window in 1..3 {
            let start = dense.window_start(path, title, &text, window, 16).unwrap();
            assert_eq!(
                dense.window_start(path, title, &titled, window, 16),
                Some(start + (titled.len() - text.len()))
            );
        }
    }
}
