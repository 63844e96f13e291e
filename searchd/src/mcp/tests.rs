use serde_json::json;

use super::*;

#[test]
fn every_tool_is_listed_with_both_schemas_and_a_short_description() {
    let tools = tools::list();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, tools::NAMES);
    for tool in tools {
        let description = tool.description.as_deref().unwrap_or("");
        assert!(
            !description.is_empty() && description.split_whitespace().count() <= 30,
            "{}: {description:?}",
            tool.name
        );
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        let output = tool.output_schema.as_ref().expect("output schema");
        assert_eq!(output["type"], "object", "{}", tool.name);
    }
    let search = &tools[0];
    let properties = search.input_schema["properties"].as_object().unwrap();
    for field in ["query", "top_k", "mode", "path_prefixes", "when", "autocut"] {
        assert!(properties.contains_key(field), "{field}");
    }
    assert_eq!(search.input_schema["required"], json!(["query"]));
}

#[test]
fn tool_calls_are_queued_by_what_they_cost() {
    let call = |name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
    };
    assert_eq!(
        limits_class(Some(&call("search", json!({"query": "x"})))),
        Class::Search
    );
    assert_eq!(
        limits_class(Some(&call(
            "search",
            json!({"query": "x", "mode": "lexical"})
        ))),
        Class::Lexical
    );
    assert_eq!(
        limits_class(Some(&call("render", json!({})))),
        Class::Render
    );
    assert_eq!(
        limits_class(Some(&call("get_text", json!({})))),
        Class::Files
    );
    assert_eq!(
        limits_class(Some(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        )),
        Class::Files
    );
    assert_eq!(limits_class(None), Class::Files);
}
