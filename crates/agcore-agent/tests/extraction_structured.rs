//! Fact extraction on a real small model (SmolLM2-135M behind the local
//! llama-cpp-python server of `scripts/services.sh`): with structured output
//! (the fact JSON Schema as `response_format`, which the server turns into a
//! grammar) every one of 20 extraction calls parses; without it, failed calls
//! keep the dialogue buffer.

use std::sync::Arc;
use std::time::Duration;

use agcore_agent::LongTermOptions;
use agcore_agent::long_term::{ExtractionReport, run_extraction};
use agcore_llm::{LlmProvider, OpenAiConfig, OpenAiProvider};
use agcore_memory::MemoryError;
use agcore_memory::long_term::{ExtractConfig, InMemoryLongTerm, LongTermMemory, StructuredOutput};

/// One user message and the reply, in English and Chinese.
const DIALOGUES: [(&str, &str); 20] = [
    ("I live in Lyon and I work as a nurse.", "Nice to meet you."),
    ("Please answer in short bullet points from now on.", "Sure."),
    ("My daughter Emma starts school in September.", "Exciting!"),
    (
        "We decided to use PostgreSQL for the billing service.",
        "Good choice.",
    ),
    ("I'm allergic to peanuts.", "I'll keep that in mind."),
    ("The deadline for the report moved to Friday.", "Noted."),
    (
        "I prefer tea over coffee, green tea mostly.",
        "Green tea it is.",
    ),
    ("Our team meets every Monday at 9.", "Thanks."),
    (
        "That last answer was wrong, the capital of Australia is Canberra.",
        "You are right.",
    ),
    ("My favourite running route is along the Rhône.", "Lovely."),
    ("The design document lives at docs/design.md.", "Got it."),
    ("I'm learning Rust and I like async code.", "Great."),
    ("我住在上海，平时喜欢喝咖啡。", "好的，记住了。"),
    ("以后请用中文回答我。", "没问题。"),
    ("我们项目下周三上线。", "祝顺利。"),
    ("My cat is called Miso.", "Cute name."),
    ("I drive a blue electric car.", "Nice."),
    ("We use GitHub Actions for CI in this project.", "OK."),
    ("I don't eat meat on weekdays.", "Understood."),
    ("My birthday is on the 3rd of May.", "I'll remember."),
];

/// The server's settings, or `None` (skipped) on a machine without it.
fn server() -> Option<OpenAiConfig> {
    let base = agcore_memory_testkit::service_url("AGCORE_TEST_OPENAI_BASE_URL")?;
    let model = std::env::var("AGCORE_TEST_OPENAI_MODEL").unwrap_or_else(|_| "smollm2".into());
    Some(OpenAiConfig::new(base).with_default_model(model))
}

fn options(mode: StructuredOutput) -> LongTermOptions {
    let mut extract = ExtractConfig::default();
    extract.max_facts = 3;
    extract.min_confidence = 0.0;
    extract.structured_output = mode;
    LongTermOptions::new()
        .extract(extract)
        .extraction_timeout(Duration::from_secs(180))
}

/// A failed extraction: its error and how many turns the buffer still holds.
struct Failure {
    error: String,
    pending: usize,
}

/// Runs one extraction per dialogue; returns the reports of those that parsed
/// and the failures of those that did not.
async fn extract_all(
    provider: &Arc<dyn LlmProvider>,
    options: &LongTermOptions,
) -> Result<(Vec<ExtractionReport>, Vec<Failure>), MemoryError> {
    let (mut reports, mut errors) = (Vec::new(), Vec::new());
    for (n, (user, assistant)) in DIALOGUES.iter().enumerate() {
        let memory = LongTermMemory::new(InMemoryLongTerm::new());
        let scoped = memory.scope("assistant", format!("user{n}"))?;
        scoped.buffer_append("s1", user, assistant).await?;
        let run = run_extraction(
            scoped.clone(),
            "s1".into(),
            Arc::clone(provider),
            String::new(),
            options.clone(),
        )
        .await;
        match run {
            Ok(report) => reports.push(report),
            Err(err) => errors.push(Failure {
                error: format!("dialogue {n}: {err}"),
                pending: scoped.buffer_pending("s1", 10).await?.len(),
            }),
        }
    }
    Ok((reports, errors))
}

#[tokio::test]
async fn every_structured_extraction_parses() {
    let Some(config) = server() else {
        return;
    };
    let provider: Arc<dyn LlmProvider> = Arc::new(OpenAiProvider::new(config).unwrap());
    let options = options(StructuredOutput::JsonSchema);
    let (reports, errors) = extract_all(&provider, &options).await.unwrap();
    let repaired = reports.iter().filter(|r| r.repaired).count();
    let truncated = reports.iter().filter(|r| r.truncated).count();
    let facts: usize = reports.iter().map(|r| r.facts.created.len()).sum();
    eprintln!(
        "structured: {} of {} parsed ({repaired} after a repair, {truncated} cut off), {facts} facts",
        reports.len(),
        DIALOGUES.len()
    );
    let messages: Vec<&str> = errors.iter().map(|f| f.error.as_str()).collect();
    assert!(errors.is_empty(), "{messages:#?}");
    assert_eq!(reports.len(), DIALOGUES.len());
    assert!(
        reports.iter().all(|r| r.structured),
        "every request was constrained by a response_format the server accepted"
    );
    assert!(reports.iter().all(|r| r.marked_applied == 1 || r.truncated));
}

/// The same calls without a response format, as the figure to compare with
/// (1 of 20 parse on SmolLM2-135M): replies that are not fact JSON fail the
/// run cleanly and the dialogue buffer keeps the turn for a later run.
#[tokio::test]
async fn unconstrained_failures_keep_the_buffer() {
    let Some(config) = server() else {
        return;
    };
    let provider: Arc<dyn LlmProvider> = Arc::new(OpenAiProvider::new(config).unwrap());
    let (reports, errors) = extract_all(&provider, &options(StructuredOutput::Off))
        .await
        .unwrap();
    let repaired = reports.iter().filter(|r| r.repaired).count();
    eprintln!(
        "unconstrained: {} of {} parsed ({repaired} after a repair)",
        reports.len(),
        DIALOGUES.len()
    );
    assert_eq!(reports.len() + errors.len(), DIALOGUES.len());
    assert!(reports.iter().all(|r| !r.structured));
    for failure in &errors {
        // A reply that is not fact JSON, not a failed request.
        assert!(
            failure
                .error
                .contains("Serialization error: fact extraction"),
            "{}",
            failure.error
        );
        assert_eq!(
            failure.pending, 1,
            "{}: the turn stays buffered",
            failure.error
        );
    }
}
