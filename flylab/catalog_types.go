package flylab

// CatalogData is the curated circuit catalog: sources, circuits with their
// embodied motor maps, evidence records, connectome records and the
// versions of the datasets they rest on. It is loaded from an embedded,
// versioned JSON file.
type CatalogData struct {
	SchemaVersion     string             `json:"schemaVersion"`
	Version           string             `json:"version"`
	Sources           []Source           `json:"sources"`
	Circuits          []Circuit          `json:"circuits"`
	Evidence          []EvidenceRecord   `json:"evidence"`
	ConnectomeRecords []ConnectomeRecord `json:"connectomeRecords"`
	DatasetVersions   []DatasetVersion   `json:"datasetVersions"`
}

// Source is a citable publication, preprint, dataset, database or software.
// DOIStatus says how far the DOI itself was checked: listed_in_science_notes,
// derived_identifier (built from a journal's id scheme), cited_by_reference_app,
// not_verified (DOI left empty) or not_applicable.
//
// Authors, Title and Venue are filled only where they were checked:
// BibliographyStatus says checked_against_record (against the record at
// BibliographyURL), from_science_notes (author and venue as the notes
// give them), from_reference_app_notes (as the notes on the original
// FlyLab page cite it) or not_verified.
type Source struct {
	ID                 string `json:"id"`
	Kind               string `json:"kind"`
	Citation           string `json:"citation"`
	Authors            string `json:"authors,omitempty"`
	Title              string `json:"title,omitempty"`
	Venue              string `json:"venue,omitempty"`
	BibliographyStatus string `json:"bibliographyStatus"`
	BibliographyURL    string `json:"bibliographyUrl,omitempty"`
	DOI                string `json:"doi,omitempty"`
	DOIStatus          string `json:"doiStatus"`
	URL                string `json:"url,omitempty"`
	Year               int    `json:"year,omitempty"`
	Note               string `json:"note,omitempty"`
}

// Circuit is one adult Drosophila brain-to-body circuit.
type Circuit struct {
	ID                  string    `json:"id"`
	Name                string    `json:"name"`
	Abbreviation        string    `json:"abbreviation"`
	Stage               string    `json:"stage"`
	Sex                 string    `json:"sex"`
	Behaviors           []string  `json:"behaviors"`
	NeuronTypes         []string  `json:"neuronTypes"`
	SearchTerms         []string  `json:"searchTerms"`
	Summary             string    `json:"summary"`
	Drivers             []string  `json:"drivers"`
	PerturbationMethods []string  `json:"perturbationMethods"`
	SourceIDs           []string  `json:"sourceIds"`
	EvidenceIDs         []string  `json:"evidenceIds"`
	ModelCoverage       string    `json:"modelCoverage"`
	Readiness           Readiness `json:"readiness"`
	TargetBodyParts     []string  `json:"targetBodyParts"`
	MotorMapID          string    `json:"motorMapId"`
	MotorMap            MotorMap  `json:"motorMap"`
	Provenance          []string  `json:"provenance"`
}

// PrimaryBehavior is the behavior the circuit's motor map is built for.
func (c Circuit) PrimaryBehavior() string { return c.Behaviors[0] }

// Readiness states what the model can and cannot do with a circuit.
type Readiness struct {
	Status   string `json:"status"`
	Boundary string `json:"boundary"`
}

// MotorMap is a circuit's embodied motor map: the typed path from neuron
// types through descending and motor targets to body parts, the body parts
// it recruits, its five-metric panel and how protocol drive enters the model.
type MotorMap struct {
	ID                     string       `json:"id"`
	CircuitID              string       `json:"circuitId"`
	MotorProgram           string       `json:"motorProgram"`
	Controller             string       `json:"controller"`
	ResponseMode           string       `json:"responseMode"`
	SupportedLaterality    []string     `json:"supportedLaterality"`
	SupportedPerturbations []string     `json:"supportedPerturbations"`
	Behaviors              []string     `json:"behaviors"`
	TargetBodyParts        []string     `json:"targetBodyParts"`
	RecommendedMetrics     []string     `json:"recommendedMetrics"`
	Nodes                  []PathNode   `json:"nodes"`
	Edges                  []PathEdge   `json:"edges"`
	BodyPartLinks          []BodyLink   `json:"bodyPartLinks,omitempty"`
	BrainToBodyPaths       [][]string   `json:"brainToBodyPaths"`
	Drive                  DriveMapping `json:"drive"`
	Summary                string       `json:"summary"`
	EvidenceBoundary       string       `json:"evidenceBoundary"`
	SimulationBoundary     string       `json:"simulationBoundary"`
}

// PathNode is one element of a brain-to-body path. Level is one of
// sensory_input, brain, descending, vnc_premotor, motor_neuron, muscle,
// body_part.
type PathNode struct {
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	Level       string   `json:"level"`
	Side        string   `json:"side"`
	Role        string   `json:"role"`
	Provenance  string   `json:"provenance"`
	EvidenceIDs []string `json:"evidenceIds"`
}

// PathEdge is a typed link between two path nodes.
type PathEdge struct {
	ID          string   `json:"id"`
	From        string   `json:"from"`
	To          string   `json:"to"`
	Relation    string   `json:"relation"`
	Provenance  string   `json:"provenance"`
	EvidenceIDs []string `json:"evidenceIds"`
	Boundary    string   `json:"boundary"`
}

// BodyLink is the catalog file's shorthand for edges from one node to
// several body parts; loading expands it into nodes and edges.
type BodyLink struct {
	From        string   `json:"from"`
	BodyParts   []string `json:"bodyParts"`
	Relation    string   `json:"relation"`
	Provenance  string   `json:"provenance"`
	EvidenceIDs []string `json:"evidenceIds"`
	Boundary    string   `json:"boundary"`
}

// DriveMapping says how a protocol's activation level enters the model's
// drive channels (forward, backward, turn, groom, giant_fiber,
// parallel_escape) for bilateral and unilateral stimulation, which natural
// stimulus silencing designs present, and how long grooming persists.
type DriveMapping struct {
	Bilateral          []ChannelGain `json:"bilateral"`
	Unilateral         []ChannelGain `json:"unilateral"`
	ReferenceStimulus  string        `json:"referenceStimulus"`
	SilencingReference []ChannelGain `json:"silencingReference"`
	GroomPersistenceMs float64       `json:"groomPersistenceMs,omitempty"`
	BackwardLegWeights []float64     `json:"backwardLegWeights,omitempty"`
	Status             string        `json:"status"`
	Note               string        `json:"note"`
}

// ChannelGain is one channel's gain. Side applies to the turn channel under
// unilateral stimulation: "ipsilateral" turns toward the stimulated side.
type ChannelGain struct {
	Channel string  `json:"channel"`
	Gain    float64 `json:"gain"`
	Side    string  `json:"side,omitempty"`
	// External marks a silencing-reference channel driven by other
	// pathways: silencing this circuit leaves it unchanged.
	External bool `json:"external,omitempty"`
}

// EvidenceRecord is one labelled claim with its sources. Provenance is the
// label (measured only for facts read in a primary source); Role says
// whether it may support a hypothesis; Kind, Perturbations and Behaviors
// say what it is evidence for.
type EvidenceRecord struct {
	ID            string   `json:"id"`
	CircuitID     string   `json:"circuitId"`
	Label         string   `json:"label"`
	Claim         string   `json:"claim"`
	Provenance    string   `json:"provenance"`
	Kind          string   `json:"kind"`
	Role          string   `json:"role"`
	Perturbations []string `json:"perturbations"`
	Behaviors     []string `json:"behaviors"`
	SourceIDs     []string `json:"sourceIds"`
	Verification  string   `json:"verification"`
	Context       string   `json:"context"`
	Caution       string   `json:"caution"`
	// Citations are built from SourceIDs when the catalog loads; the
	// catalog file never carries them.
	Citations []Citation `json:"citations,omitempty"`
}

// ConnectomeRecord is an anatomical or dataset-level fact from EM
// reconstructions; it never establishes activity or behavior.
type ConnectomeRecord struct {
	ID         string   `json:"id"`
	Dataset    string   `json:"dataset"`
	Claim      string   `json:"claim"`
	Provenance string   `json:"provenance"`
	CircuitIDs []string `json:"circuitIds"`
	SourceIDs  []string `json:"sourceIds"`
	Boundary   string   `json:"boundary"`
}

// DatasetVersion pins a dataset, software release or the catalog itself.
type DatasetVersion struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Version   string     `json:"version"`
	Snapshot  string     `json:"snapshot"`
	SourceIDs []string   `json:"sourceIds"`
	Files     []FileHash `json:"files"`
	Note      string     `json:"note"`
	// Provenance of a version pin is derived: it records which published
	// release a fact was read from, not a new measurement.
	Provenance []string `json:"provenance"`
}

// FileHash is a file and its SHA-256 ("sha256:" + hex).
type FileHash struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}
