//! Tests of the race and join combinators.

use std::future::Future;
use std::pin::pin;
use std::task::Context;
use std::task::Poll;
use std::task::Waker;

use crate::model::LocalFuture;

use super::Either;
use super::join_all;
use super::race;

fn now<F: Future>(future: F) -> Poll<F::Output> {
    let mut cx = Context::from_waker(Waker::noop());
    pin!(future).poll(&mut cx)
}

#[test]
fn race_prefers_the_left_future_on_a_tie() {
    let res = now(race(async { 1 }, async { 2 }));
    assert!(matches!(res, Poll::Ready(Either::Left(1))));
}

#[test]
fn race_takes_the_right_future_when_the_left_is_pending() {
    let res = now(race(std::future::pending::<u8>(), async { 2 }));
    assert!(matches!(res, Poll::Ready(Either::Right(2))));
}

#[test]
fn join_all_keeps_input_order_and_waits_for_every_future() {
    let futures: Vec<LocalFuture<'_, u8>> = vec![Box::pin(async { 1 }), Box::pin(async { 2 })];
    assert_eq!(now(join_all(futures)), Poll::Ready(vec![1, 2]));
    let futures: Vec<LocalFuture<'_, u8>> =
        vec![Box::pin(async { 1 }), Box::pin(std::future::pending())];
    assert_eq!(now(join_all(futures)), Poll::Pending);
}
