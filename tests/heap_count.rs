//! The live-heap count of `wireplan::memory` (what `--max-memory` and the benchmarks' peak
//! figures read): each thread holds back less than `PUBLISH_STEP` bytes of change, and the
//! calling thread's share is added before `live`/`peak` answer, so on one thread they are exact
//! (up to what the harness itself allocates meanwhile).

#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

use wireplan::memory::{live, peak, purges_promptly, reset_peak, PROMPT_PURGE_ABOVE, PUBLISH_STEP};

// One test function: the count is process-wide, and tests running at once on the harness's
// threads would move it under each other.
#[test]
fn the_live_heap_count() {
    small_blocks_are_counted_exactly_on_the_calling_thread();
    a_short_peak_on_this_thread_is_seen();
    another_threads_change_is_published_within_one_step();
    helper_threads_leave_the_count_exact();
    // Last: the switch lasts for the rest of the process.
    a_large_heap_switches_to_prompt_purging();
}

/// A large text is lexed in lanes and parsed in parts on helper threads (on a machine with
/// two cores or more); each publishes what it holds back before it ends, so once the decoded
/// tree (built partly on those threads) is dropped here, the count is back where it was.
/// Without that, each ended thread's held-back share (up to `PUBLISH_STEP`) would be lost.
fn helper_threads_leave_the_count_exact() {
    let mut text = String::from("services:\n");
    for i in 0..12_000 {
        text.push_str(&format!("\ts{i}: App\\S{i}(@s{}, 5)\n", i / 2));
    }
    assert!(text.len() > 300_000);
    let before = live();
    let value = wireplan::neon::decode(&text, wireplan::source::FileId(0)).expect("decodes");
    assert!(live() - before > 1_000_000, "the tree is counted");
    drop(value);
    let after = live();
    assert!(after.abs_diff(before) < 4096, "{before} -> {after}");
}

fn small_blocks_are_counted_exactly_on_the_calling_thread() {
    let before = live();
    // 100 blocks of 100 bytes: far below the publishing step each, 10,000 bytes together.
    let blocks: Vec<Box<[u8; 100]>> = (0..100).map(|_| Box::new([7u8; 100])).collect();
    let vec_bytes = blocks.capacity() * std::mem::size_of::<Box<[u8; 100]>>();
    // Within a few hundred bytes (the test harness may allocate or free a little on this
    // thread meanwhile); without the thread's held-back share the change would read 0.
    let held = live() - before;
    assert!(held.abs_diff(100 * 100 + vec_bytes) < 256, "{held}");
    drop(blocks);
    assert!(live().abs_diff(before) < 256);
}

fn a_short_peak_on_this_thread_is_seen() {
    let before = live();
    reset_peak();
    let block = vec![1u8; 3 * PUBLISH_STEP + 5];
    let held = live() - before;
    drop(std::hint::black_box(block));
    assert!(held.abs_diff(3 * PUBLISH_STEP + 5) < 256, "{held}");
    assert!(
        peak() >= before + held,
        "peak {} below {}",
        peak(),
        before + held
    );
    assert!(live().abs_diff(before) < 256);
}

fn another_threads_change_is_published_within_one_step() {
    let before = live();
    // Held on another thread and returned: the bytes that thread holds back are its own,
    // less than one publishing step.
    let kept = std::thread::spawn(|| vec![2u8; 10 * PUBLISH_STEP])
        .join()
        .unwrap();
    let now = live();
    let expected = before + kept.len();
    assert!(now.abs_diff(expected) < PUBLISH_STEP, "{now} vs {expected}");
    assert_eq!(kept[10 * PUBLISH_STEP - 1], 2);
}

fn a_large_heap_switches_to_prompt_purging() {
    assert!(
        !purges_promptly(),
        "a small heap keeps freed pages until a stage ends"
    );
    // Zeroed: the operating system's fresh pages, not touched.
    let block = vec![0u8; PROMPT_PURGE_ABOVE + PUBLISH_STEP];
    assert!(live() > PROMPT_PURGE_ABOVE);
    assert!(purges_promptly(), "passing the threshold switches at once");
    drop(std::hint::black_box(block));
    assert!(purges_promptly(), "and for good");
}
