//! The future combinators the hosts and the providers need (race and join), written here so no
//! crate needs an async runtime or the `futures` crate: the same code runs on tokio, in the
//! simulation and in a service worker.

use std::future::Future;
use std::pin::Pin;
use std::task::Context;
use std::task::Poll;

use crate::model::LocalFuture;

/// Which of two raced futures finished first.
#[derive(Debug)]
pub enum Either<A, B> {
    /// The first.
    Left(A),
    /// The second.
    Right(B),
}

/// Polls `left` and then `right` until one completes; the other is dropped. `left` wins a tie,
/// so a chunk that is ready is never lost to a timer firing at the same moment.
pub async fn race<A, B>(left: A, right: B) -> Either<A::Output, B::Output>
where
    A: Future,
    B: Future,
{
    let mut left = std::pin::pin!(left);
    let mut right = std::pin::pin!(right);
    std::future::poll_fn(move |cx| {
        if let Poll::Ready(out) = left.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(out));
        }
        if let Poll::Ready(out) = right.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(out));
        }
        Poll::Pending
    })
    .await
}

/// Runs every future concurrently and returns their outputs in input order.
pub fn join_all<'a, T: 'a>(futures: Vec<LocalFuture<'a, T>>) -> JoinAll<'a, T> {
    let slots = futures.into_iter().map(Slot::Running).collect();
    JoinAll { slots }
}

/// Future of [`join_all`].
pub struct JoinAll<'a, T> {
    slots: Vec<Slot<'a, T>>,
}

impl<T> std::fmt::Debug for JoinAll<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let done = self.slots.iter().filter(|slot| matches!(slot, Slot::Done(_))).count();
        write!(f, "JoinAll({done} of {} done)", self.slots.len())
    }
}

enum Slot<'a, T> {
    Running(LocalFuture<'a, T>),
    Done(Option<T>),
}

// The futures are boxed and the outputs are only ever moved out, never pinned in place.
impl<T> Unpin for JoinAll<'_, T> {}

impl<T> Future for JoinAll<'_, T> {
    type Output = Vec<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<T>> {
        let this = self.get_mut();
        let mut all_done = true;
        for slot in &mut this.slots {
            if let Slot::Running(future) = slot {
                match future.as_mut().poll(cx) {
                    Poll::Ready(out) => *slot = Slot::Done(Some(out)),
                    Poll::Pending => all_done = false,
                }
            }
        }
        if !all_done {
            return Poll::Pending;
        }
        let outputs = this
            .slots
            .iter_mut()
            .filter_map(|slot| match slot {
                Slot::Done(out) => out.take(),
                Slot::Running(_) => None,
            })
            .collect();
        Poll::Ready(outputs)
    }
}

#[cfg(test)]
#[path = "combinators_tests.rs"]
mod tests;
