package flylab

import (
	"strings"
	"unicode"
)

// behaviorWords maps query words to the behavior they ask about. Words
// like "walk" are left out on purpose: they do not pick a direction.
var behaviorWords = map[string]string{
	"backward": BehaviorBackwardWalking, "backwards": BehaviorBackwardWalking, "backing": BehaviorBackwardWalking,
	"reverse": BehaviorBackwardWalking, "reversing": BehaviorBackwardWalking, "moonwalk": BehaviorBackwardWalking,
	"moonwalking": BehaviorBackwardWalking, "backup": BehaviorBackwardWalking,
	"retreat": BehaviorRetreat, "retreating": BehaviorRetreat, "retreats": BehaviorRetreat, "avoid": BehaviorRetreat,
	"avoidance": BehaviorRetreat, "withdraw": BehaviorRetreat, "backaway": BehaviorRetreat,
	"forward": BehaviorForwardWalking, "forwards": BehaviorForwardWalking, "running": BehaviorForwardWalking,
	"run": BehaviorForwardWalking, "straight": BehaviorForwardWalking,
	"turn": BehaviorTurning, "turns": BehaviorTurning, "turning": BehaviorTurning, "steer": BehaviorTurning,
	"steering": BehaviorTurning, "rotate": BehaviorTurning, "rotation": BehaviorTurning, "heading": BehaviorTurning,
	"saccade": BehaviorTurning,
	"escape":  BehaviorShortModeEscape, "escapes": BehaviorShortModeEscape, "takeoff": BehaviorShortModeEscape,
	"jump": BehaviorShortModeEscape, "jumping": BehaviorShortModeEscape, "flee": BehaviorShortModeEscape,
	"fleeing": BehaviorShortModeEscape, "shortmode": BehaviorShortModeEscape,
	"groom": BehaviorGrooming, "grooming": BehaviorGrooming, "grooms": BehaviorGrooming, "clean": BehaviorGrooming,
	"cleaning": BehaviorGrooming, "antenna": BehaviorGrooming, "antennae": BehaviorGrooming,
	"antennal": BehaviorGrooming, "dust": BehaviorGrooming,
}

var stopWords = map[string]bool{
	"the": true, "and": true, "that": true, "with": true, "this": true, "from": true, "which": true, "what": true,
	"whether": true, "when": true, "does": true, "make": true, "makes": true, "find": true, "test": true,
	"neurons": true, "neuron": true, "circuit": true, "circuits": true, "fly": true, "flies": true, "drosophila": true,
	"adult": true, "into": true, "their": true, "them": true, "then": true, "than": true, "will": true, "would": true,
	"should": true, "could": true, "about": true, "using": true, "use": true, "design": true, "experiment": true,
	"activating": true, "activation": true, "silencing": true, "increase": true, "increases": true, "decrease": true,
	"behavior": true, "behaviour": true, "drive": true, "drives": true, "walking": true, "walk": true,
}

// tokenize lowercases text, splits it on anything not a letter or digit and
// adds each adjacent pair joined ("take off" -> "takeoff") so multi-word
// names match their one-word forms.
func tokenize(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	tokens := make([]string, 0, 2*len(words))
	tokens = append(tokens, words...)
	for i := 0; i+1 < len(words); i++ {
		tokens = append(tokens, words[i]+words[i+1])
	}
	return tokens
}

// normalizeTerm folds a catalog name ("Giant fiber", "aDN1 (DNg62)") to the
// joined token form the query side produces.
func normalizeTerm(term string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(term) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// searchDoc is a circuit's precomputed search view.
type searchDoc struct {
	circuitID string
	primary   string
	behaviors []string
	own       []string        // the circuit's own abbreviations: strongest matches
	names     []string        // other neuron types on its path: strong matches
	terms     []string        // curated search terms: weak matches
	text      map[string]bool // words of the summary and evidence claims
	bodyParts []string
}

func buildSearchDocs(d CatalogData) []searchDoc {
	docs := make([]searchDoc, 0, len(d.Circuits))
	for _, c := range d.Circuits {
		doc := searchDoc{circuitID: c.ID, primary: c.PrimaryBehavior(), behaviors: c.Behaviors,
			text: map[string]bool{}, bodyParts: c.TargetBodyParts}
		seen := map[string]bool{}
		add := func(list *[]string, name string) {
			if n := normalizeTerm(name); len(n) >= 2 && !seen[n] {
				seen[n] = true
				*list = append(*list, n)
			}
		}
		for _, part := range strings.Split(c.Abbreviation, "/") {
			add(&doc.own, part)
		}
		for _, n := range c.NeuronTypes {
			name, _, _ := strings.Cut(n, " (")
			add(&doc.names, name)
		}
		for _, t := range c.SearchTerms {
			if n := normalizeTerm(t); !seen[n] {
				seen[n] = true
				doc.terms = append(doc.terms, n)
			}
		}
		words := tokenize(c.Name + " " + c.Summary)
		for _, e := range d.Evidence {
			if e.CircuitID == c.ID {
				words = append(words, tokenize(e.Claim)...)
			}
		}
		for _, w := range words {
			if len(w) >= 4 && !stopWords[w] {
				doc.text[w] = true
			}
		}
		docs = append(docs, doc)
	}
	return docs
}

// Score weights, in integer points so ties are exact.
const (
	scoreOwnName         = 50
	scoreName            = 25
	scoreTerm            = 10
	scorePrimaryBehavior = 30
	scoreOtherBehavior   = 15
	scoreTextWord        = 2
	scoreTextCap         = 20
	ambiguityPercent     = 90 // a runner-up within 90% of the best is a real alternative
	defaultSearchLimit   = 8
	maxSearchLimit       = 20
	maxQueryRunes        = 1000
	behaviorFilterAny    = "any"
	bodyPartFilterAny    = "any"
)

// scoreDoc scores one circuit against the query tokens and returns the
// matched terms (for the caller to see why it ranked).
func scoreDoc(doc searchDoc, tokens map[string]bool, queryBehaviors map[string]bool, behaviorFilter string) (int, []string) {
	score := 0
	var matched []string
	for _, n := range doc.own {
		if tokens[n] {
			score += scoreOwnName
			matched = append(matched, n)
		}
	}
	for _, n := range doc.names {
		if tokens[n] {
			score += scoreName
			matched = append(matched, n)
		}
	}
	for _, t := range doc.terms {
		if tokens[t] {
			score += scoreTerm
			matched = append(matched, t)
		}
	}
	for i, b := range doc.behaviors {
		if queryBehaviors[b] || b == behaviorFilter {
			if i == 0 {
				score += scorePrimaryBehavior
			} else {
				score += scoreOtherBehavior
			}
			matched = append(matched, "behavior:"+b)
		}
	}
	shared := 0
	for w := range tokens { // a count: iteration order cannot matter
		if doc.text[w] {
			shared++
		}
	}
	return score + min(shared*scoreTextWord, scoreTextCap), matched
}
