//! One test per conformance case (written by scripts/conformance-tests; do not edit).

use super::conformance::run_named;

#[test]
fn cascade_error_policy_fail_is_genuine() {
    run_named("cascade-error-policy-fail-is-genuine");
}

#[test]
fn cascade_errored_individual_is_not_a_fail() {
    run_named("cascade-errored-individual-is-not-a-fail");
}

#[test]
fn cascade_genuine_fail_plus_broken_reduction_stops() {
    run_named("cascade-genuine-fail-plus-broken-reduction-stops");
}

#[test]
fn cascade_machinery_error_not_a_genuine_fail() {
    run_named("cascade-machinery-error-not-a-genuine-fail");
}

#[test]
fn cascade_meta_tier_with_failing_and_broken_member() {
    run_named("cascade-meta-tier-with-failing-and-broken-member");
}

#[test]
fn cascade_nested_inner_propagated_adopted() {
    run_named("cascade-nested-inner-propagated-adopted");
}

#[test]
fn cascade_nested_inner_rejection_adopted() {
    run_named("cascade-nested-inner-rejection-adopted");
}

#[test]
fn cascade_null_reduction_direct() {
    run_named("cascade-null-reduction-direct");
}

#[test]
fn cascade_null_reduction_nested_in_meta_escalates() {
    run_named("cascade-null-reduction-nested-in-meta-escalates");
}

#[test]
fn cascade_opaque_exclusion_non_final_then_pass() {
    run_named("cascade-opaque-exclusion-non-final-then-pass");
}

#[test]
fn cascade_opaque_exclusion_sole_final() {
    run_named("cascade-opaque-exclusion-sole-final");
}

#[test]
fn cascade_refused_exclusion_with_real_fail_stops() {
    run_named("cascade-refused-exclusion-with-real-fail-stops");
}

#[test]
fn cascade_rejecting_cascade_as_final_tier() {
    run_named("cascade-rejecting-cascade-as-final-tier");
}

#[test]
fn cascade_throwing_tiers() {
    run_named("cascade-throwing-tiers");
}

#[test]
fn cascade_tier_names_are_local() {
    run_named("cascade-tier-names-are-local");
}

#[test]
fn cj_accept_tier_escalates_on_fail() {
    run_named("cj-accept-tier-escalates-on-fail");
}

#[test]
fn cj_final_tier_always_decides() {
    run_named("cj-final-tier-always-decides");
}

#[test]
fn cj_only_entered_tiers_recorded() {
    run_named("cj-only-entered-tiers-recorded");
}

#[test]
fn cj_pass_abstain_reject_tier_escalates() {
    run_named("cj-pass-abstain-reject-tier-escalates");
}

#[test]
fn cj_reject_tier_stops_with_its_own_aggregate() {
    run_named("cj-reject-tier-stops-with-its-own-aggregate");
}

#[test]
fn cj_split_accept_tier_then_failing_final() {
    run_named("cj-split-accept-tier-then-failing-final");
}

#[test]
fn cj_three_tiers_escalate_to_final() {
    run_named("cj-three-tiers-escalate-to-final");
}

#[test]
fn cj_throwing_final_tier() {
    run_named("cj-throwing-final-tier");
}

#[test]
fn construct_defaults() {
    run_named("construct-defaults");
}

#[test]
fn construct_null_error_policy_refused() {
    run_named("construct-null-error-policy-refused");
}

#[test]
fn construct_null_tie_policy_refused() {
    run_named("construct-null-tie-policy-refused");
}

#[test]
fn construct_threshold_validated_first() {
    run_named("construct-threshold-validated-first");
}

#[test]
fn declared_names_duplicate_rejected() {
    run_named("declared-names-duplicate-rejected");
}

#[test]
fn declared_names_positional_collision_rejected() {
    run_named("declared-names-positional-collision-rejected");
}

#[test]
fn declared_names_positional_seat_rejected() {
    run_named("declared-names-positional-seat-rejected");
}

#[test]
fn exclusion_blank_declaration_refused() {
    run_named("exclusion-blank-declaration-refused");
}

#[test]
fn exclusion_capable_seat_under_refuse_rejected() {
    run_named("exclusion-capable-seat-under-refuse-rejected");
}

#[test]
fn exclusion_dedup_rename_keeps_capability() {
    run_named("exclusion-dedup-rename-keeps-capability");
}

#[test]
fn exclusion_opaque_jury_composes() {
    run_named("exclusion-opaque-jury-composes");
}

#[test]
fn exclusion_unstable_declaration_refused_on_describe() {
    run_named("exclusion-unstable-declaration-refused-on-describe");
}

#[test]
#[ignore = "variant {judge: null} cannot be built in Rust (a seat takes Arc<dyn Judge>, never null); the other five variants are unit tests in src/jury/simple.rs"]
fn simple_jury_builder_validation() {
    run_named("simple-jury-builder-validation");
}

#[test]
fn cascade_rejecting_cascade_as_meta_member_ignore() {
    run_named("cascade-rejecting-cascade-as-meta-member-ignore");
}

#[test]
fn cascade_rejecting_cascade_as_meta_member_propagate() {
    run_named("cascade-rejecting-cascade-as-meta-member-propagate");
}

#[test]
fn cascade_rejecting_cascade_as_meta_member_treat_as_abstain() {
    run_named("cascade-rejecting-cascade-as-meta-member-treatAsAbstain");
}

#[test]
fn juries_combine_and_all_of_member_names() {
    run_named("juries-combine-and-allOf-member-names");
}

#[test]
fn meta_consensus_split_abstains() {
    run_named("meta-consensus-split-abstains");
}

#[test]
fn meta_member_own_policy_error_is_input() {
    run_named("meta-member-own-policy-error-is-input");
}

#[test]
fn meta_single_member_majority_then_consensus() {
    run_named("meta-single-member-majority-then-consensus");
}

#[test]
fn meta_throwing_member_is_stage_failure() {
    run_named("meta-throwing-member-is-stage-failure");
}

#[test]
fn meta_undecided_member() {
    run_named("meta-undecided-member");
}

#[test]
fn containment_fatal_error_not_caught() {
    run_named("containment-fatal-error-not-caught");
}

#[test]
fn containment_invents_no_finding() {
    run_named("containment-invents-no-finding");
}

#[test]
fn containment_strategy_throws() {
    run_named("containment-strategy-throws");
}

#[test]
fn containment_unauthorized_exclusion() {
    run_named("containment-unauthorized-exclusion");
}

#[test]
fn declared_names_collision_without_guard() {
    run_named("declared-names-collision-without-guard");
}

#[test]
fn exclusion_seat_guard_undeclared() {
    run_named("exclusion-seat-guard-undeclared");
}

#[test]
fn exclusion_unreadable_metadata_seat() {
    run_named("exclusion-unreadable-metadata-seat");
}

#[test]
fn juries_from_judges_auto_names() {
    run_named("juries-fromJudges-auto-names");
}

#[test]
fn juries_from_judges_deduplicates() {
    run_named("juries-fromJudges-deduplicates");
}

#[test]
fn simple_jury_default_weights() {
    run_named("simple-jury-default-weights");
}

#[test]
fn simple_jury_weighted_voting() {
    run_named("simple-jury-weighted-voting");
}

#[test]
fn simple_jury_zero_weight() {
    run_named("simple-jury-zero-weight");
}

#[test]
fn average_above_threshold() {
    run_named("average-above-threshold");
}

#[test]
fn average_boolean_as_numeric() {
    run_named("average-boolean-as-numeric");
}

#[test]
fn average_error_vs_real_zero() {
    run_named("average-error-vs-real-zero");
}

#[test]
fn average_exact_threshold_passes() {
    run_named("average-exact-threshold-passes");
}

#[test]
fn average_mixed_boolean_numeric() {
    run_named("average-mixed-boolean-numeric");
}

#[test]
fn consensus_abstain_does_not_break_unanimity() {
    run_named("consensus-abstain-does-not-break-unanimity");
}

#[test]
fn consensus_all_abstain_vs_split() {
    run_named("consensus-all-abstain-vs-split");
}

#[test]
fn consensus_all_error_ignore() {
    run_named("consensus-all-error-ignore");
}

#[test]
fn consensus_all_error_treat_as_abstain() {
    run_named("consensus-all-error-treatAsAbstain");
}

#[test]
fn consensus_all_error_treat_as_fail() {
    run_named("consensus-all-error-treatAsFail");
}

#[test]
fn consensus_fail_plus_error_non_propagate() {
    run_named("consensus-fail-plus-error-non-propagate");
}

#[test]
fn consensus_pass_plus_error_ignore() {
    run_named("consensus-pass-plus-error-ignore");
}

#[test]
fn consensus_pass_plus_error_propagate() {
    run_named("consensus-pass-plus-error-propagate");
}

#[test]
fn consensus_pass_plus_error_treat_as_abstain() {
    run_named("consensus-pass-plus-error-treatAsAbstain");
}

#[test]
fn consensus_pass_plus_error_treat_as_fail() {
    run_named("consensus-pass-plus-error-treatAsFail");
}

#[test]
fn consensus_reads_status_not_score() {
    run_named("consensus-reads-status-not-score");
}

#[test]
fn consensus_split_abstains() {
    run_named("consensus-split-abstains");
}

#[test]
fn consensus_unanimous_fail() {
    run_named("consensus-unanimous-fail");
}

#[test]
fn consensus_unanimous_pass() {
    run_named("consensus-unanimous-pass");
}

#[test]
fn error_policy_matrix_any_strategy_ignore() {
    run_named("error-policy-matrix-any-strategy-ignore");
}

#[test]
fn error_policy_matrix_consensus_treat_as_fail() {
    run_named("error-policy-matrix-consensus-treatAsFail");
}

#[test]
fn error_policy_matrix_majority_treat_as_fail() {
    run_named("error-policy-matrix-majority-treatAsFail");
}

#[test]
fn majority_all_abstain() {
    run_named("majority-all-abstain");
}

#[test]
fn majority_all_errors_ignore() {
    run_named("majority-all-errors-ignore");
}

#[test]
fn majority_all_errors_treat_as_abstain() {
    run_named("majority-all-errors-treat-as-abstain");
}

#[test]
fn majority_all_errors_treat_as_fail() {
    run_named("majority-all-errors-treat-as-fail");
}

#[test]
fn majority_empty_input_rejected() {
    run_named("majority-empty-input-rejected");
}

#[test]
fn majority_fail_outnumbers_pass() {
    run_named("majority-fail-outnumbers-pass");
}

#[test]
fn majority_mixed_ignore_tie_abstain() {
    run_named("majority-mixed-ignore-tie-abstain");
}

#[test]
fn majority_tie_fail() {
    run_named("majority-tie-fail");
}

#[test]
fn median_abstains_cannot_flip() {
    run_named("median-abstains-cannot-flip");
}

#[test]
fn median_below_threshold() {
    run_named("median-below-threshold");
}

#[test]
fn median_boolean() {
    run_named("median-boolean");
}

#[test]
fn median_even_count() {
    run_named("median-even-count");
}

#[test]
fn median_exact_threshold() {
    run_named("median-exact-threshold");
}

#[test]
fn policy_all_excluded_treat_as_fail() {
    run_named("policy-all-excluded-treat-as-fail");
}

#[test]
fn policy_error_code_counts_always_present() {
    run_named("policy-error-code-counts-always-present");
}

#[test]
fn policy_exclude_empty_treat_as_abstain() {
    run_named("policy-exclude-empty-treat-as-abstain");
}

#[test]
fn policy_exclude_errors_as_fail_gate() {
    run_named("policy-exclude-errors-as-fail-gate");
}

#[test]
fn policy_excluded_plus_abstain_is_abstain() {
    run_named("policy-excluded-plus-abstain-is-abstain");
}

#[test]
fn policy_na_treat_as_fail_counted_twice() {
    run_named("policy-na-treat-as-fail-counted-twice");
}

#[test]
fn policy_origin_may_exceed_error_count() {
    run_named("policy-origin-may-exceed-error-count");
}

#[test]
fn policy_propagate_carries_origin() {
    run_named("policy-propagate-carries-origin");
}

#[test]
fn policy_refuse_inert_without_exclusion() {
    run_named("policy-refuse-inert-without-exclusion");
}

#[test]
fn policy_refuse_wins_over_any_error_policy() {
    run_named("policy-refuse-wins-over-any-error-policy");
}

#[test]
fn propagate_evidence_order_independent() {
    run_named("propagate-evidence-order-independent");
}

#[test]
fn weighted_all_zero_rejected() {
    run_named("weighted-all-zero-rejected");
}

#[test]
fn weighted_basic() {
    run_named("weighted-basic");
}

#[test]
fn weighted_invalid_weights_rejected() {
    run_named("weighted-invalid-weights-rejected");
}

#[test]
fn weighted_missing_weight_defaults_to_one() {
    run_named("weighted-missing-weight-defaults-to-one");
}

#[test]
fn weighted_zero_eligible_weight_abstains() {
    run_named("weighted-zero-eligible-weight-abstains");
}

#[test]
fn weighted_zero_weight_legal() {
    run_named("weighted-zero-weight-legal");
}

#[test]
fn exclusion_bound_simple_jury() {
    run_named("exclusion-bound-simple-jury");
}

#[test]
fn juries_from_judges_requires_a_judge() {
    run_named("juries-fromJudges-requires-a-judge");
}

#[test]
fn meta_construction_rules() {
    run_named("meta-construction-rules");
}

#[test]
fn containment_misattributed_error_code() {
    run_named("containment-misattributed-error-code");
}

#[test]
fn exclusion_capable_seat_builds_when_policy_decides() {
    run_named("exclusion-capable-seat-builds-when-policy-decides");
}

#[test]
fn meta_machinery_member_never_rejects() {
    run_named("meta-machinery-member-never-rejects");
}
