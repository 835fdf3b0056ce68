package runner

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// InlineTurnInputCap is the largest turn_input also handed inline in
// GATEHOUSE_TURN_INPUT; every input is in the file GATEHOUSE_TURN_INPUT_FILE
// names (an environment variable cannot hold a NUL byte, and the kernel
// refuses one above 128 KiB).
const InlineTurnInputCap = 32 << 10

// credentialPrefixes are the environment variables of LLM and cloud
// providers (and of Gatehouse itself) that never reach the agent: its only
// LLM is the rollout's llm_url, its only key the rollout's api_key.
var credentialPrefixes = []string{
	"GATEHOUSE_", "OPENAI_", "AZURE_", "ANTHROPIC_", "CLAUDE_", "AWS_", "AMAZON_", "BEDROCK_", "GOOGLE_", "GCLOUD_",
	"CLOUDSDK_", "GCP_", "VERTEX_", "GEMINI_", "MISTRAL_", "COHERE_", "CO_API_", "GROQ_", "TOGETHER_", "FIREWORKS_",
	"DEEPSEEK_", "XAI_", "PERPLEXITY_", "OPENROUTER_", "REPLICATE_", "HF_", "HUGGINGFACE_", "HUGGING_FACE_",
	"LANGCHAIN_", "LANGSMITH_", "OLLAMA_", "VOYAGE_", "NVIDIA_", "IBM_", "WATSONX_", "DATABRICKS_", "CEREBRAS_",
}

// credentialSuffixes catch a credential of any other provider by its name.
var credentialSuffixes = []string{"_API_KEY", "_APIKEY", "_ACCESS_KEY", "_SECRET", "_SECRET_KEY", "_ACCESS_TOKEN", "_AUTH_TOKEN", "_TOKEN", "_PASSWORD", "_CREDENTIALS"}

// isCredential reports whether an environment variable's name is one the
// agent must not inherit.
func isCredential(name string) bool {
	up := strings.ToUpper(name)
	for _, p := range credentialPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	return false
}

// rolloutInputs writes what does not fit the environment into files of a
// private directory (outside the artifacts directory, so they are not
// reported back): the turn input, the metadata and the whole request
// minus its secrets.
type rolloutInputs struct {
	dir, turnInput, metadata string
}

func writeInputs(work string, r RolloutRequest) (rolloutInputs, error) {
	dir := filepath.Join(work, "inputs", filepath.Base(r.RolloutID)+"-"+randomToken()[:8])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return rolloutInputs{}, err
	}
	in := rolloutInputs{dir: dir, turnInput: filepath.Join(dir, "turn_input.txt")}
	if err := os.WriteFile(in.turnInput, []byte(r.TurnInput), 0o600); err != nil {
		return in, err
	}
	if len(r.Metadata) > 0 && string(r.Metadata) != "null" {
		in.metadata = filepath.Join(dir, "metadata.json")
		if err := os.WriteFile(in.metadata, r.Metadata, 0o600); err != nil {
			return in, err
		}
	}
	return in, nil
}

func (in rolloutInputs) remove() {
	if in.dir != "" {
		_ = os.RemoveAll(in.dir)
	}
}

// agentEnv is the agent's whole configuration: the runner's environment
// minus every credential, plus the rollout's.
func agentEnv(base []string, r RolloutRequest, llmBase, artifacts string, in rolloutInputs) []string {
	env := make([]string, 0, len(base)+8)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !isCredential(name) {
			env = append(env, kv)
		}
	}
	env = append(env,
		"OPENAI_BASE_URL="+llmBase, "OPENAI_API_KEY="+r.APIKey,
		"GATEHOUSE_ROLLOUT_ID="+r.RolloutID, "GATEHOUSE_TURN_INPUT_FILE="+in.turnInput,
		"GATEHOUSE_ARTIFACTS_DIR="+artifacts, fmt.Sprintf("GATEHOUSE_DEADLINE_TS=%.6f", r.DeadlineTS))
	if len(r.TurnInput) <= InlineTurnInputCap && !strings.ContainsRune(r.TurnInput, 0) {
		env = append(env, "GATEHOUSE_TURN_INPUT="+r.TurnInput)
	}
	if in.metadata != "" {
		env = append(env, "GATEHOUSE_METADATA_FILE="+in.metadata)
	}
	return env
}

func randomToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}
