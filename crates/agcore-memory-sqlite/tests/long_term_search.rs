//! Search on every backend honours type and archive filters, ranks, handles
//! CJK text and finds filtered entries ranked below many others.
#![cfg(test)]

use crate::long_term_support;

use agcore_memory::long_term::{
    ArchivedFilter, ListRequest, MemoryType, MemoryUpdate, NewMemory, SearchRequest,
};
use long_term_support::backends;

#[tokio::test(flavor = "multi_thread")]
async fn search_ranks_filters_and_handles_cjk() {
    for (name, memory) in backends().await {
        let m = memory.scope("agent", "u1").unwrap();
        let style = m
            .save(NewMemory::new(
                MemoryType::User,
                "用户偏好-简洁风格",
                "用户偏好简洁直接的回答风格，不喜欢冗长的解释。",
            ))
            .await
            .unwrap()
            .entry;
        let sprint = m
            .save(
                NewMemory::new(
                    MemoryType::Project,
                    "当前冲刺目标",
                    "本周冲刺目标是完成支付模块重构",
                )
                .with_description("sprint goal"),
            )
            .await
            .unwrap()
            .entry;
        let fmt = m
            .save(NewMemory::new(
                MemoryType::Feedback,
                "no formatting",
                "Do not auto-format the user's code",
            ))
            .await
            .unwrap()
            .entry;
        assert_eq!(
            m.search("回答要简洁", 5).await.unwrap()[0].entry.id,
            style.id,
            "{name}"
        );
        assert_eq!(
            m.search("支付模块", 5).await.unwrap()[0].entry.id,
            sprint.id,
            "{name}"
        );
        assert_eq!(
            m.search("sprint", 5).await.unwrap()[0].entry.id,
            sprint.id,
            "{name}: description indexed"
        );
        assert_eq!(
            m.search("FORMAT code", 5).await.unwrap()[0].entry.id,
            fmt.id,
            "{name}"
        );
        let typed = SearchRequest::top_k(5).of_type(MemoryType::User);
        assert!(
            m.search_with("format code", &typed)
                .await
                .unwrap()
                .is_empty(),
            "{name}: type filter"
        );
        assert!(
            m.search("\"* OR NEAR( -- ;", 5).await.unwrap().is_empty(),
            "{name}: syntax is literal"
        );
        m.update(fmt.id, MemoryUpdate::new().archived(true))
            .await
            .unwrap();
        assert!(
            m.search("format code", 5).await.unwrap().is_empty(),
            "{name}: archived hidden"
        );
        let with = SearchRequest::top_k(5).archived(ArchivedFilter::Include);
        assert_eq!(
            m.search_with("format code", &with).await.unwrap().len(),
            1,
            "{name}"
        );
        assert!(m.search("支付", 0).await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn filters_find_entries_ranked_below_many_others() {
    for (name, memory) in backends().await {
        let m = memory.scope("agent", "u1").unwrap();
        // Another scope with many better matches must not crowd this one out.
        let other = memory.scope("agent", "u2").unwrap();
        for i in 0..60 {
            other
                .save(NewMemory::new(MemoryType::User, "", format!("alpha {i}")))
                .await
                .unwrap();
            m.save(NewMemory::new(
                MemoryType::Project,
                "",
                format!("alpha beta {i}"),
            ))
            .await
            .unwrap();
        }
        let user = m
            .save(NewMemory::new(
                MemoryType::User,
                "",
                "alpha with a much longer text around it so it ranks last",
            ))
            .await
            .unwrap()
            .entry;
        let typed = SearchRequest::top_k(1).of_type(MemoryType::User);
        let hits = m.search_with("alpha", &typed).await.unwrap();
        assert_eq!(hits.len(), 1, "{name}");
        assert_eq!(hits[0].entry.id, user.id, "{name}");
        let top = m.search("alpha", 10).await.unwrap();
        assert_eq!(top.len(), 10, "{name}");
        assert!(top.iter().all(|h| h.entry.user_id == "u1"), "{name}");
        assert!(
            top.windows(2).all(|w| w[0].score >= w[1].score),
            "{name}: best first"
        );
        for e in m
            .list(&ListRequest::all().of_type(MemoryType::Project))
            .await
            .unwrap()
        {
            m.update(e.id, MemoryUpdate::new().archived(true))
                .await
                .unwrap();
        }
        let hits = m.search("alpha", 3).await.unwrap();
        assert_eq!(
            hits.iter().map(|h| h.entry.id).collect::<Vec<_>>(),
            vec![user.id],
            "{name}"
        );
        let archived = SearchRequest::top_k(100).archived(ArchivedFilter::Only);
        assert_eq!(
            m.search_with("beta", &archived).await.unwrap().len(),
            60,
            "{name}"
        );
    }
}
