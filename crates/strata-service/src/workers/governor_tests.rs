//! The governor against modelled servers: each model gives, for a worker
//! count, the rate served and each worker's busy fraction.

use std::time::Duration;

use super::governor::{Governor, Sample, SAMPLE_EVERY};

/// Runs `governor` for `secs` against `model` from `start` (cumulative
/// figures carried in `state`); returns the worker count at each sample.
fn run(
    governor: &mut Governor,
    state: &mut Sample,
    secs: u64,
    model: impl Fn(usize) -> (f64, Vec<f64>),
) -> Vec<usize> {
    let mut counts = Vec::new();
    let end = state.at + Duration::from_secs(secs);
    while state.at < end {
        let (rate, busy) = model(governor.active());
        let dt = SAMPLE_EVERY.as_secs_f64();
        state.at += SAMPLE_EVERY;
        state.served += (rate * dt) as u64;
        state
            .busy
            .resize(busy.len().max(state.busy.len()), Duration::ZERO);
        for (total, b) in state.busy.iter_mut().zip(&busy) {
            *total += Duration::from_secs_f64(b * dt);
        }
        counts.push(governor.observe(state.clone()));
    }
    counts
}

/// Probes that started: rises of the count.
fn tries_up(counts: &[usize]) -> usize {
    counts.windows(2).filter(|w| w[1] > w[0]).count()
}

/// Pipelined load: one worker saturated, two serve 30% more.
fn scales(k: usize) -> (f64, Vec<f64>) {
    match k {
        1 => (1_000_000.0, vec![1.0, 0.0]),
        _ => (1_300_000.0, vec![0.8, 0.8]),
    }
}

/// Clients sharing the cores: one worker busy, two serve 8% less.
fn contends(k: usize) -> (f64, Vec<f64>) {
    match k {
        1 => (1_000_000.0, vec![0.9, 0.0]),
        _ => (920_000.0, vec![0.7, 0.7]),
    }
}

#[test]
fn a_saturated_worker_gets_a_second_that_pays_and_keeps_it() {
    let mut governor = Governor::new(2);
    let mut state = Sample::default();
    let counts = run(&mut governor, &mut state, 120, scales);
    // Two within the first three seconds, and two nearly all the time
    // after (tries of one fewer fail and come ever less often).
    assert!(counts[..30].contains(&2), "{counts:?}");
    let late = &counts[100..];
    let at_two = late.iter().filter(|&&k| k == 2).count();
    assert!(
        at_two * 100 >= late.len() * 95,
        "two workers only {at_two} of {}",
        late.len()
    );
    assert_eq!(governor.active(), 2);
}

#[test]
fn a_second_worker_that_serves_less_is_dropped_and_rarely_tried() {
    let mut governor = Governor::new(2);
    let mut state = Sample::default();
    let counts = run(&mut governor, &mut state, 300, contends);
    let at_one = counts.iter().filter(|&&k| k == 1).count();
    assert!(
        at_one * 100 >= counts.len() * 95,
        "one worker only {at_one} of {}",
        counts.len()
    );
    // Backoff: 30 s, 60, then every 120 s: 4 tries in 300 s.
    let tries = tries_up(&counts);
    assert!((3..=5).contains(&tries), "{tries} tries");
    assert_eq!(governor.active(), 1);
}

#[test]
fn a_light_load_stays_on_one_worker_without_tries() {
    let mut governor = Governor::new(4);
    let mut state = Sample::default();
    let counts = run(&mut governor, &mut state, 60, |_| {
        (50_000.0, vec![0.2, 0.0, 0.0, 0.0])
    });
    assert!(counts.iter().all(|&k| k == 1), "{counts:?}");
}

#[test]
fn one_worker_is_all_a_pool_of_one_has() {
    let mut governor = Governor::new(1);
    let mut state = Sample::default();
    let counts = run(&mut governor, &mut state, 30, |_| (1e6, vec![1.0]));
    assert!(counts.iter().all(|&k| k == 1));
}

#[test]
fn climbs_past_two_while_each_step_pays() {
    let mut governor = Governor::new(4);
    let mut state = Sample::default();
    // Three workers serve the most; a fourth only adds contention.
    let model = |k: usize| {
        let rate = [0.0, 1.0e6, 1.6e6, 2.0e6, 1.9e6][k];
        (rate, vec![0.95; k])
    };
    let counts = run(&mut governor, &mut state, 120, model);
    let late = &counts[600..];
    let at_three = late.iter().filter(|&&k| k == 3).count();
    assert!(
        at_three * 100 >= late.len() * 90,
        "{at_three} of {}",
        late.len()
    );
}

#[test]
fn when_the_load_falls_the_extra_worker_goes_at_once() {
    let mut governor = Governor::new(2);
    let mut state = Sample::default();
    run(&mut governor, &mut state, 20, scales);
    assert_eq!(governor.active(), 2);
    // Clients go quiet: the two workers are nearly idle.
    let counts = run(&mut governor, &mut state, 5, |k| (40_000.0, vec![0.1; k]));
    assert_eq!(counts.last(), Some(&1), "{counts:?}");
    assert_eq!(governor.active(), 1);
}

#[test]
fn a_changed_load_ends_the_backoff() {
    let mut governor = Governor::new(2);
    let mut state = Sample::default();
    // Contention first: tries fail and the backoff grows.
    run(&mut governor, &mut state, 80, contends);
    assert_eq!(governor.active(), 1);
    // Then a pipelined load (30% more per worker and scaling): two come
    // within seconds, not after the grown backoff.
    let heavier = |k: usize| match k {
        1 => (1_400_000.0, vec![1.0, 0.0]),
        _ => (2_000_000.0, vec![0.9, 0.9]),
    };
    let counts = run(&mut governor, &mut state, 4, heavier);
    assert!(counts.contains(&2), "{counts:?}");
}

#[test]
fn a_new_lighter_load_tries_one_worker_again_at_once() {
    let mut governor = Governor::new(2);
    let mut state = Sample::default();
    // A pipelined bulk load: two workers kept.
    run(&mut governor, &mut state, 10, scales);
    assert_eq!(governor.active(), 2);
    // Then single requests from clients sharing the cores, still keeping
    // both workers busy, at a third of the rate: one worker serves more.
    let single = |k: usize| match k {
        1 => (330_000.0, vec![0.9, 0.0]),
        _ => (300_000.0, vec![0.8, 0.8]),
    };
    let counts = run(&mut governor, &mut state, 12, single);
    // The change is seen, a clean window taken, one worker tried and
    // kept; two, just measured to serve less, are not tried again soon.
    assert!(counts[40..].iter().all(|&k| k == 1), "{counts:?}");
    assert_eq!(governor.active(), 1);
}
