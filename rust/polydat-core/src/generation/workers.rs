//! Work sharing for `generate` on several threads: the rows are cut into
//! more tasks than there are workers, and each worker takes the next task
//! when it finishes one, so a worker slowed by a busy core does less of the
//! work instead of holding everyone up. Results come back in task order,
//! and a failure stops only the tasks after it: the first failure in row
//! order is always the one found, as on one thread.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Tasks per worker when the rows allow it.
pub const TASKS_PER_WORKER: usize = 8;

/// The fewest rows worth a task of their own.
pub const MIN_TASK_ROWS: usize = 1 << 14;

/// How many tasks `rows` rows make on `workers` workers: one per worker at
/// least (a worker with nothing to do is not started), up to
/// [`TASKS_PER_WORKER`] each while a task keeps [`MIN_TASK_ROWS`] rows.
pub fn task_count(rows: usize, workers: usize) -> usize {
    let workers = workers.clamp(1, rows.max(1));
    if workers == 1 {
        return 1;
    }
    (rows / MIN_TASK_ROWS).clamp(workers, workers * TASKS_PER_WORKER)
}

/// Why a worker could not deliver a task's own result.
#[derive(Debug)]
pub enum Trouble {
    /// A worker thread could not be started (the work still completes on
    /// the workers that did start).
    Spawn(std::io::Error),
    /// The task panicked (a defect: kernels contain their nodes' panics).
    Panicked,
}

/// What one task came to: its result, or `None` when it did not run (a
/// task before it failed, or a worker could not be started).
pub type Outcome<R, E> = Option<Result<R, E>>;

/// Runs `tasks` on the workers' states `states` (one worker each; the first
/// on the calling thread, the others on new named threads): `run(index,
/// state, task)` for every task, taken in order by whichever worker is
/// free. Once a task fails, the tasks after it are skipped. `trouble`
/// gives the error recorded for a task that panicked, or when a thread
/// cannot be started. The outcomes are in task order.
pub fn run_shared<S, T, R, E>(
    states: &mut [S],
    tasks: Vec<T>,
    run: &(dyn Fn(usize, &mut S, T) -> Result<R, E> + Sync),
    trouble: &(dyn Fn(Trouble) -> E + Sync),
) -> Vec<Outcome<R, E>>
where
    S: Send,
    T: Send,
    R: Send,
    E: Send,
{
    let count = tasks.len();
    let queue: Vec<Mutex<Option<T>>> = tasks.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let outcomes: Vec<Mutex<Outcome<R, E>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let first_failure = AtomicUsize::new(usize::MAX);
    let work = |state: &mut S| loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= count || index > first_failure.load(Ordering::Relaxed) {
            return;
        }
        let Some(task) = lock(&queue[index]).take() else { continue };
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(index, &mut *state, task)));
        let outcome = ran.unwrap_or_else(|_| Err(trouble(Trouble::Panicked)));
        if outcome.is_err() {
            first_failure.fetch_min(index, Ordering::Relaxed);
        }
        *lock(&outcomes[index]) = Some(outcome);
    };
    let mut spawn_error = None;
    let workers = states.len().min(count);
    if let [own, others @ ..] = &mut states[..workers] {
        std::thread::scope(|scope| {
            for (t, state) in others.iter_mut().enumerate() {
                let work = &work;
                let spawned = std::thread::Builder::new().name(format!("polydat-generate-{}", t + 1)).spawn_scoped(
                    scope,
                    move || {
                        work(state);
                    },
                );
                if let Err(e) = spawned {
                    spawn_error = Some(trouble(Trouble::Spawn(e)));
                    break;
                }
            }
            work(own);
        });
    }
    let mut outcomes: Vec<Outcome<R, E>> =
        outcomes.into_iter().map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner())).collect();
    if let Some(e) = spawn_error {
        // Reported after every task's own outcome (a real failure comes first).
        if let Some(skipped) = outcomes.iter_mut().find(|o| o.is_none()) {
            *skipped = Some(Err(e));
        } else {
            outcomes.push(Some(Err(e)));
        }
    }
    outcomes
}

/// A lock that a panic elsewhere cannot poison for good (the data is a
/// task or an outcome, whole either way).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_are_cut_by_rows_and_workers() {
        assert_eq!(task_count(10, 1), 1);
        assert_eq!(task_count(10, 4), 4);
        assert_eq!(task_count(1, 4), 1);
        assert_eq!(task_count(0, 4), 1);
        assert_eq!(task_count(MIN_TASK_ROWS * 5, 2), 5);
        assert_eq!(task_count(10_000_000, 2), 2 * TASKS_PER_WORKER);
    }

    #[test]
    fn every_task_runs_once_and_comes_back_in_order() {
        let mut states = vec![0usize; 3];
        let outcomes = run_shared(
            &mut states,
            (0..100).collect(),
            &|index, ran: &mut usize, task: i32| -> Result<i32, String> {
                *ran += 1;
                assert_eq!(index as i32, task);
                Ok(task * 2)
            },
            &|t| format!("{t:?}"),
        );
        let got: Vec<i32> = outcomes.into_iter().map(|o| o.unwrap().unwrap()).collect();
        assert_eq!(got, (0..100).map(|t| t * 2).collect::<Vec<_>>());
        assert_eq!(states.iter().sum::<usize>(), 100);
    }

    #[test]
    fn the_first_failure_in_task_order_is_found_and_later_tasks_skip() {
        let mut states = vec![(); 2];
        let outcomes = run_shared(
            &mut states,
            (0..64).collect(),
            &|_, _: &mut (), task: usize| -> Result<usize, usize> {
                if task == 40 || task == 41 {
                    return Err(task);
                }
                std::thread::sleep(std::time::Duration::from_micros(50));
                Ok(task)
            },
            &|_| usize::MAX,
        );
        let first_err = outcomes.iter().position(|o| matches!(o, Some(Err(_))));
        assert_eq!(first_err, Some(40));
        assert!(outcomes[..40].iter().all(|o| matches!(o, Some(Ok(_)))));
        assert!(outcomes[42..].iter().all(|o| o.is_none() || matches!(o, Some(Ok(_)))));
    }

    #[test]
    fn one_worker_runs_nothing_after_a_failure() {
        let mut states = vec![0usize; 1];
        let outcomes = run_shared(
            &mut states,
            (0..10).collect(),
            &|_, ran: &mut usize, task: usize| -> Result<usize, usize> {
                *ran += 1;
                if task == 4 {
                    return Err(task);
                }
                Ok(task)
            },
            &|_| usize::MAX,
        );
        assert_eq!(states[0], 5);
        assert!(outcomes[5..].iter().all(Option::is_none));
    }

    #[test]
    fn a_panicking_task_is_a_failure_not_a_crash() {
        let mut states = vec![(); 2];
        let outcomes = crate::node::guard::guarded(|| {
            run_shared(
                &mut states,
                (0..8).collect(),
                &|_, _: &mut (), task: usize| -> Result<usize, String> {
                    if task == 3 {
                        panic!("task 3");
                    }
                    Ok(task)
                },
                &|t| format!("{t:?}"),
            )
        })
        .expect("the panic stays inside the task");
        assert_eq!(outcomes.iter().position(|o| matches!(o, Some(Err(_)))), Some(3));
        assert!(matches!(&outcomes[3], Some(Err(m)) if m == "Panicked"));
    }
}
