//! A blocking work queue between the compile threads (producers) and the GPU lanes
//! (consumers): `pop` waits until an item arrives or the queue is closed and empty. A lane
//! that cannot take an item (its worker will not start) puts it back at the front.
//!
//! Hand-written (a mutex and a condition variable) rather than a channel crate: the lanes need
//! `push_front` and a drain of what is left after a close, which channels do not offer.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

/// A closable FIFO shared by producers (compile threads) and consumers (lanes).
pub struct WorkQueue<T> {
    state: Mutex<(VecDeque<T>, bool)>,
    cv: Condvar,
}

impl<T> Default for WorkQueue<T> {
    fn default() -> Self {
        WorkQueue {
            state: Mutex::new((VecDeque::new(), false)),
            cv: Condvar::new(),
        }
    }
}

impl<T> WorkQueue<T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, (VecDeque<T>, bool)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds an item at the back.
    pub fn push(&self, item: T) {
        self.lock().0.push_back(item);
        self.cv.notify_one();
    }

    /// Puts an item back at the front.
    pub fn push_front(&self, item: T) {
        self.lock().0.push_front(item);
        self.cv.notify_one();
    }

    /// No more items will be pushed (put-backs still may be).
    pub fn close(&self) {
        self.lock().1 = true;
        self.cv.notify_all();
    }

    /// The next item; `None` once closed and empty.
    pub fn pop(&self) -> Option<T> {
        let mut g = self.lock();
        loop {
            if let Some(x) = g.0.pop_front() {
                return Some(x);
            }
            if g.1 {
                return None;
            }
            g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Removes and returns everything left.
    pub fn drain(&self) -> Vec<T> {
        self.lock().0.drain(..).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consumers_get_every_item_then_none() {
        let q = WorkQueue::default();
        let got = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    while let Some(x) = q.pop() {
                        got.lock().unwrap().push(x);
                    }
                });
            }
            for i in 0..100 {
                q.push(i);
            }
            q.close();
        });
        let mut v = got.into_inner().unwrap();
        v.sort();
        assert_eq!(v, (0..100).collect::<Vec<_>>());
        q.push_front(5);
        assert_eq!(q.drain(), vec![5]);
        assert_eq!(q.pop(), None);
    }
}
