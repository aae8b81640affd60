//! A single-threaded one-shot channel: the user's answer to an elicitation, the end of a
//! connect others wait for. (No `futures` dependency for one small type.)

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::Context;
use std::task::Poll;
use std::task::Waker;

/// The sending half; dropping it unsent completes the receiver with `None`.
pub(crate) struct Sender<T> {
    slot: Rc<RefCell<Slot<T>>>,
}

/// The receiving half: a future of the value, or `None` when the sender was dropped.
pub(crate) struct Receiver<T> {
    slot: Rc<RefCell<Slot<T>>>,
}

struct Slot<T> {
    value: Option<T>,
    closed: bool,
    waker: Option<Waker>,
}

/// A new channel.
pub(crate) fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Rc::new(RefCell::new(Slot { value: None, closed: false, waker: None }));
    (Sender { slot: Rc::clone(&slot) }, Receiver { slot })
}

impl<T> Sender<T> {
    /// Sends `value` (dropped when the receiver is gone).
    pub(crate) fn send(self, value: T) {
        self.slot.borrow_mut().value = Some(value);
        // `Drop` closes and wakes.
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut slot = self.slot.borrow_mut();
            slot.closed = true;
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut slot = self.slot.borrow_mut();
        if let Some(value) = slot.value.take() {
            return Poll::Ready(Some(value));
        }
        if slot.closed {
            return Poll::Ready(None);
        }
        slot.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sender")
    }
}
