// Package research holds the research domain's workflows. An experiment is
// the workflow research-experiment/<id>: the authority for its status, gate
// and attempt. Transitions are an Update whose validator consults the gate
// table (package gates) before anything reaches history; uploaded
// artifacts, review requests, review starts, verdicts and settled
// dependencies arrive as signals; reads are the state query.
package research
