package flywheel

import (
	"strings"
	"time"

	"gorm.io/gorm"
)

// inlineClaimAllProjects is an all-projects claim as it was before the
// claim functions: the query of flywheel_claim sent whole as one
// statement, with positional parameters, planned by the session from the
// statistics of the moment (the benchmarks' reference).
var inlineClaimAllProjects = inlineClaim("(r.owner = ANY(p_owners) OR r.owner LIKE p_prefix)")

// inlineClaim is claimFunctionTemplate's query with where as its pick's
// restriction and each parameter written as its positional placeholder.
func inlineClaim(where string) string {
	start := strings.Index(claimFunctionTemplate, "RETURN QUERY ") + len("RETURN QUERY ")
	end := strings.Index(claimFunctionTemplate, "FROM granted g;") + len("FROM granted g")
	if start < len("RETURN QUERY ") || end < start {
		panic("inlineClaim: claimFunctionTemplate changed shape")
	}
	// The status is the parameter it was before the functions named it.
	query := strings.NewReplacer(append([]string{"{{where}}", where, "{{queued}}", "p_status"}, locatedParts...)...).Replace(claimFunctionTemplate[start:end])
	// Longer names first: p_leased before p_lease.
	return strings.NewReplacer(
		"p_status", "CAST($1 AS text)", "p_now", "CAST($2 AS timestamptz)", "p_max", "CAST($3 AS bigint)",
		"p_tokens", "CAST($4 AS text)", "p_keys", "CAST($5 AS text)", "p_llms", "CAST($6 AS text)",
		"p_leased", "CAST($7 AS text)", "p_lease", "CAST($8 AS double precision)", "p_by", "CAST($9 AS text)",
		"p_kind", "CAST($10 AS text)", "p_grace", "CAST($11 AS timestamptz)", "p_lead", "CAST($12 AS double precision)",
		"p_owners", "CAST($13 AS text[])", "p_prefix", "CAST($14 AS text)", "p_locators", "CAST($15 AS text)",
	).Replace(query)
}

// claimInline is claimOneStatement for an all-projects key by
// inlineClaimAllProjects.
func claimInline(db *gorm.DB, who Claimant, max int, lease time.Duration, now time.Time) ([]Grant, error) {
	secrets, statement, args := claimStatement(who, max, lease, now)
	if statement != claimAllProjects {
		panic("claimInline: not an all-projects claim")
	}
	return runClaim(db, secrets, inlineClaimAllProjects, args)
}
