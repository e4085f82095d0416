/**
 * What the official MCP conformance suite's server scenarios may not pass against Capstan's
 * `/mcp`, and why. conformance.test.ts runs every other server scenario of each revision, and
 * fails on any check of theirs that does not pass: nothing here fails silently.
 */

/** Scenarios left out at every revision, each with its reason. */
export const LEFT_OUT: Record<string, string> = {
  // The runner's fixture tools, which a server under test is expected to serve by these names.
  'tools-call-simple-text': 'calls the fixture tool test_simple_text',
  'tools-call-image': 'calls the fixture tool test_image_content',
  'tools-call-audio': 'calls the fixture tool test_audio_content',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-error': 'calls the fixture tool test_error_handling',
  'tools-call-with-progress': 'calls the fixture tool test_tool_with_progress',
  'tools-call-sampling': 'calls the fixture tool test_sampling (and Capstan asks its clients for no sampling)',
  'tools-call-elicitation': 'calls the fixture tool test_elicitation (and Capstan asks its clients for no elicitation)',
  'elicitation-sep1034-defaults': 'calls the fixture tool test_elicitation_sep1034_defaults',
  'elicitation-sep1330-enums': 'calls the fixture tool test_elicitation_sep1330_enums',
  'json-schema-2020-12': 'inspects the fixture tool json_schema_2020_12_tool',
  'http-custom-header-server-validation': 'needs a fixture tool with x-mcp-header parameters (every check reports "Not testable")',
  'input-required-result-basic-elicitation': 'calls the fixture tool test_input_required_result_elicitation',
  'input-required-result-basic-sampling': 'calls the fixture tool test_input_required_result_sampling',
  'input-required-result-basic-list-roots': 'calls the fixture tool test_input_required_result_list_roots',
  'input-required-result-request-state': 'calls the fixture tool test_input_required_result_request_state',
  'input-required-result-multiple-input-requests': 'calls the fixture tool test_input_required_result_multiple_inputs',
  'input-required-result-multi-round': 'needs a fixture tool that answers with an InputRequiredResult',
  'input-required-result-missing-input-response': 'needs a fixture tool that answers with an InputRequiredResult',
  'input-required-result-non-tool-request': 'gets the fixture prompt test_input_required_result_prompt',
  'input-required-result-result-type': 'calls the fixture tool test_input_required_result_elicitation',
  'input-required-result-tampered-state': 'needs a fixture tool that answers with an InputRequiredResult and requestState',
  'input-required-result-capability-check': 'calls the fixture tool test_input_required_result_capabilities',
  'input-required-result-ignore-extra-params': 'calls the fixture tool test_input_required_result_elicitation',
  // The runner's fixture resources and prompts are run (issue 20): an MCP server behind the
  // gateway serves that content (test/support/conformanceContent.ts), read through /mcp.
  // Features Capstan does not offer its MCP clients.
  'resources-subscribe':
    "Capstan offers agents no resource subscriptions (resources/subscribe is Method not found): /mcp answers each request on its own, with no stream to carry notifications/resources/updated; the operator's console follows resources",
  'resources-unsubscribe': 'Capstan offers agents no resource subscriptions (see resources-subscribe)',
  'logging-set-level': 'Capstan does not offer the logging capability to its MCP clients',
  'tools-call-with-logging': 'Capstan does not offer the logging capability to its MCP clients',
};

/**
 * Checks of a scenario that is run which drive one of the runner's own fixture tools; the runner
 * reports each as "Not testable" (a warning or failure whose message says so).
 */
export const NOT_TESTABLE: Record<string, string> = {
  'sep-2575-server-rejects-undeclared-capability': 'drives the fixture tool test_missing_capability',
  'sep-2575-missing-capability-http-400': 'drives the fixture tool test_missing_capability',
  'sep-2575-http-server-no-independent-requests-on-stream': 'drives the fixture tool test_streaming_elicitation',
  'sep-2575-server-no-log-without-loglevel': 'drives the fixture tool test_logging_tool',
};
