//! Background jobs for the GUI: a `std::thread` that runs one closure, with a
//! shared progress counter, a cancel flag and a one-shot result channel. The
//! UI polls [`Job::poll`] once per frame and never blocks on it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// Progress and cancellation shared between the UI and a worker.
#[derive(Clone, Debug, Default)]
pub struct JobCtl {
    pub done: Arc<AtomicUsize>,
    pub total: Arc<AtomicUsize>,
    pub cancel: Arc<AtomicBool>,
}

impl JobCtl {
    pub fn set_total(&self, t: usize) {
        self.total.store(t, Ordering::Relaxed);
    }
    pub fn set_done(&self, d: usize) {
        self.done.store(d, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
    /// Done / total in [0, 1] (0 when the total is unknown).
    pub fn fraction(&self) -> f32 {
        let t = self.total.load(Ordering::Relaxed);
        if t == 0 {
            0.0
        } else {
            (self.done.load(Ordering::Relaxed) as f32 / t as f32).min(1.0)
        }
    }
}

/// A running job producing `T`.
pub struct Job<T> {
    /// What the job does, for the progress line.
    pub label: String,
    pub ctl: JobCtl,
    rx: Receiver<T>,
    started: std::time::Instant,
}

/// What polling a job found.
pub enum Poll<T> {
    Running,
    Finished(T),
    /// The worker panicked or dropped its sender.
    Lost,
}

impl<T: Send + 'static> Job<T> {
    /// Start `work` on a new thread.
    pub fn spawn(
        label: impl Into<String>,
        work: impl FnOnce(&JobCtl) -> T + Send + 'static,
    ) -> Self {
        let ctl = JobCtl::default();
        let (tx, rx) = channel();
        let c2 = ctl.clone();
        std::thread::spawn(move || {
            let r = work(&c2);
            let _ = tx.send(r);
        });
        Job {
            label: label.into(),
            ctl,
            rx,
            started: std::time::Instant::now(),
        }
    }

    pub fn poll(&mut self) -> Poll<T> {
        match self.rx.try_recv() {
            Ok(v) => Poll::Finished(v),
            Err(TryRecvError::Empty) => Poll::Running,
            Err(TryRecvError::Disconnected) => Poll::Lost,
        }
    }

    /// Block until the job ends (tests and the headless screenshot path).
    pub fn wait(self) -> Option<T> {
        self.rx.recv().ok()
    }

    pub fn cancel(&self) {
        self.ctl.cancel.store(true, Ordering::Relaxed);
    }

    pub fn elapsed(&self) -> std::time::Duration {
        self.started.elapsed()
    }
}

/// The front end's end of a worker's command channel: it counts the
/// commands sent, so that a snapshot carrying how many the worker had read
/// can tell whether it answers all of them ([`Outbox::answered`]).
pub struct Outbox<C> {
    tx: std::sync::mpsc::Sender<C>,
    sent: AtomicUsize,
}

impl<C> Outbox<C> {
    /// A channel: the outbox, and the worker's receiver.
    pub fn new() -> (Self, Receiver<C>) {
        let (tx, rx) = channel();
        let sent = AtomicUsize::new(0);
        (Outbox { tx, sent }, rx)
    }

    /// Send `c` (ignored once the worker has ended).
    pub fn send(&self, c: C) {
        if self.tx.send(c).is_ok() {
            self.sent.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether a worker that had read `read` commands had read them all.
    pub fn answered(&self, read: u64) -> bool {
        read >= self.sent.load(Ordering::Relaxed) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_reports_progress_and_result() {
        let mut j = Job::spawn("count", |c| {
            c.set_total(4);
            let mut s = 0;
            for i in 0..4 {
                s += i;
                c.set_done(i + 1);
            }
            s
        });
        let v = loop {
            match j.poll() {
                Poll::Finished(v) => break v,
                Poll::Running => std::thread::yield_now(),
                Poll::Lost => panic!("lost"),
            }
        };
        assert_eq!(v, 6);
        assert_eq!(j.ctl.fraction(), 1.0);
    }

    #[test]
    fn cancel_is_seen_by_worker() {
        let j = Job::spawn("spin", |c| {
            let mut n = 0u64;
            while !c.is_cancelled() {
                n += 1;
                std::thread::yield_now();
            }
            n
        });
        j.cancel();
        assert!(j.wait().is_some());
    }
}
