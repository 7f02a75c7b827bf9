//! The one pool for file IO done in bulk: the same work on many files at
//! once (writes of a move that rewrites links in a thousand notes, the
//! checks before them, the folders a run of moves must sync, notes read for
//! history), with the results in the order of the items.
//!
//! Eight threads, whatever the number of cores, because the time goes to
//! waiting for the disk rather than to the CPU: fsyncs in flight together
//! share journal commits, so a thousand atomic writes take about 1 s on
//! eight threads against 7–10 s one after the other (and rayon, one thread
//! per core, would give two on a two-core machine). Parsing, which is CPU
//! work, stays on rayon (`io::load`).
//!
//! This module must not know what the work is (notes, steps, history) nor
//! take any lock: callers keep their own rules, such as a check running
//! before the write it guards, and see a panic in the work as their own.
//! A job run here must not call the pool again (eight threads per item).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Threads working on one batch (at most one per item).
const THREADS: usize = 8;

/// `work` applied to every item, on several threads when there are several
/// items; the results come in the order of `items`. A panic in `work`
/// reaches the caller once every thread has stopped.
pub(crate) fn map<T, R, F>(items: &[T], work: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let threads = items.len().min(THREADS);
    if threads <= 1 {
        return items.iter().map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        mine.push((i, work(item)));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, result)| result).collect()
}

/// Items [`map_lazily`] works on at a time: every thread busy, few results
/// held at once.
const CHUNK: usize = THREADS * 32;

/// [`map`] a chunk of items at a time, when the iterator reaches it: for
/// results too large to hold all at once (the contents of every note), and
/// for callers that must do the work while they hold a lock of their own.
pub(crate) fn map_lazily<'a, T, R, F>(items: &'a [T], work: F) -> impl Iterator<Item = R> + 'a
where
    T: Sync,
    R: Send + 'a,
    F: Fn(&T) -> R + Sync + 'a,
{
    items.chunks(CHUNK).flat_map(move |items| map(items, &work))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_order_of_the_items() {
        let items: Vec<usize> = (0..1000).collect();
        let squares = map(&items, |i| {
            if i % 7 == 0 {
                std::thread::yield_now();
            }
            i * i
        });
        assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(map(&[3], |i| i + 1), [4]);
        assert!(map(&[] as &[usize], |i| *i).is_empty());
        let lazily: Vec<usize> = map_lazily(&items, |i| i * 2).collect();
        assert_eq!(lazily, items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        let items: Vec<usize> = (0..100).collect();
        let caught = std::panic::catch_unwind(|| map(&items, |i| assert_ne!(*i, 42)));
        assert!(caught.is_err());
    }
}
