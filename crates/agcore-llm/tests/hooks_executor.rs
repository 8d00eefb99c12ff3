//! Hook executor: order, blocking, counts per event.
#![cfg(test)]

use std::sync::{Arc, Mutex};

use agcore_llm::types::ChatRequest;
use agcore_llm::{FnHook, Hook, HookContext, HookEvent, HookExecutor, HookResult};
use async_trait::async_trait;

struct Recorder {
    label: &'static str,
    log: Arc<Mutex<Vec<String>>>,
    result: HookResult,
}

#[async_trait]
impl Hook for Recorder {
    async fn execute(&self, ctx: &HookContext<'_>) -> HookResult {
        tokio::task::yield_now().await;
        self.log
            .lock()
            .unwrap()
            .push(format!("{}:{:?}", self.label, ctx.event));
        self.result.clone()
    }
}

fn recorder(
    label: &'static str,
    log: &Arc<Mutex<Vec<String>>>,
    result: HookResult,
) -> Box<dyn Hook> {
    Box::new(Recorder {
        label,
        log: Arc::clone(log),
        result,
    })
}

#[tokio::test]
async fn hooks_run_in_registration_order_per_event() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut executor = HookExecutor::new();
    executor.register(
        HookEvent::BeforeRequest,
        recorder("a", &log, HookResult::allow()),
    );
    executor.register(
        HookEvent::AfterResponse,
        recorder("x", &log, HookResult::allow()),
    );
    executor.register(
        HookEvent::BeforeRequest,
        recorder("b", &log, HookResult::allow()),
    );
    executor.register(
        HookEvent::BeforeRequest,
        recorder("c", &log, HookResult::allow()),
    );
    assert_eq!(executor.len(HookEvent::BeforeRequest), 3);
    assert_eq!(executor.len(HookEvent::OnRetry), 0);

    let request = ChatRequest::new("m", vec![]);
    let ctx = HookContext::new(HookEvent::BeforeRequest).with_request(&request);
    assert_eq!(
        executor.execute(HookEvent::BeforeRequest, &ctx).await,
        HookResult::Continue
    );
    assert_eq!(
        *log.lock().unwrap(),
        vec!["a:BeforeRequest", "b:BeforeRequest", "c:BeforeRequest"]
    );
    // An event without hooks continues.
    let ctx = HookContext::new(HookEvent::OnPlanStepComplete).with_plan_step_index(2);
    assert_eq!(
        executor.execute(HookEvent::OnPlanStepComplete, &ctx).await,
        HookResult::Continue
    );
    assert_eq!(log.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn first_block_stops_the_chain_and_is_returned() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let executor = HookExecutor::new()
        .with_hook(
            HookEvent::OnTurnStart,
            recorder("a", &log, HookResult::allow()),
        )
        .with_hook(
            HookEvent::OnTurnStart,
            recorder("b", &log, HookResult::block("quota")),
        )
        .with_hook(
            HookEvent::OnTurnStart,
            recorder("c", &log, HookResult::block("never")),
        );
    let ctx = HookContext::new(HookEvent::OnTurnStart).with_turn_index(4);
    let result = executor.execute(HookEvent::OnTurnStart, &ctx).await;
    assert_eq!(result, HookResult::block("quota"));
    assert!(result.is_blocked());
    assert_eq!(*log.lock().unwrap(), vec!["a:OnTurnStart", "b:OnTurnStart"]);
    let err = result.into_result().unwrap_err();
    assert!(matches!(err, agcore_llm::LlmError::HookBlocked { ref reason } if reason == "quota"));
}

#[tokio::test]
async fn counts_per_event_and_context_fields() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut executor = HookExecutor::new();
    for event in HookEvent::ALL {
        let seen = Arc::clone(&seen);
        executor.register(
            event,
            Box::new(FnHook(move |ctx: &HookContext<'_>| {
                seen.lock().unwrap().push((
                    ctx.event,
                    ctx.turn_index,
                    ctx.plan_step_index,
                    ctx.attempt,
                ));
                HookResult::allow()
            })),
        );
    }
    let executor = Arc::new(executor);
    executor
        .execute(
            HookEvent::OnTurnStart,
            &HookContext::new(HookEvent::OnTurnStart).with_turn_index(0),
        )
        .await;
    executor
        .execute(
            HookEvent::OnTurnEnd,
            &HookContext::new(HookEvent::OnTurnEnd).with_turn_index(0),
        )
        .await;
    executor
        .execute(
            HookEvent::OnPlanStepComplete,
            &HookContext::new(HookEvent::OnPlanStepComplete).with_plan_step_index(3),
        )
        .await;
    executor
        .execute(
            HookEvent::OnRetry,
            &HookContext::new(HookEvent::OnRetry).with_attempt(2),
        )
        .await;
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![
            (HookEvent::OnTurnStart, Some(0), None, 0),
            (HookEvent::OnTurnEnd, Some(0), None, 0),
            (HookEvent::OnPlanStepComplete, None, Some(3), 0),
            (HookEvent::OnRetry, None, None, 2),
        ]
    );
}
