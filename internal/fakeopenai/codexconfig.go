package fakeopenai

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CodexConfig is the config.toml that points the real Codex CLI at a fake:
// a custom model provider (so no sign-in screen and no OpenAI endpoints),
// retries off (so errors show at once), update checks and analytics off, and
// the working directory trusted (so no trust prompt). Keys were checked with
// `codex --strict-config` against Codex 0.169.0.
type CodexConfig struct {
	BaseURL string // the fake's BaseURL(), ending in /v1; required
	Workdir string // absolute directory marked trusted; "" trusts nothing

	// Model is the model slug; "" means DefaultModel. Codex 0.169.0's own
	// default (gpt-6.1-sol) offers only a JavaScript "exec" code-mode tool,
	// and an unknown slug adds a "Model metadata ... not found" warning;
	// gpt-5.5 has bundled metadata and the classic exec_command tool.
	Model          string
	ApprovalPolicy string // "" means "on-request" (0.169 rejects "untrusted")
	SandboxMode    string // "" means "workspace-write"
	// Retries sets request_max_retries and stream_max_retries; 0 makes an
	// error reply show at once instead of after Codex's back-off.
	Retries int
	// StreamIdleTimeoutMS, when positive, sets stream_idle_timeout_ms.
	StreamIdleTimeoutMS int
	// MCPServers are stdio MCP servers Codex starts with the session. While
	// one is starting Codex shows "Waiting for startup" and takes no
	// prompt: a server that never answers (SlowMCPServer) holds that screen
	// for its StartupTimeoutSec.
	MCPServers []MCPServer
}

// MCPServer is one [mcp_servers.NAME] table.
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	// StartupTimeoutSec is startup_timeout_sec; 0 leaves Codex's default.
	StartupTimeoutSec int
}

// SlowMCPServer is a server that starts and never answers the initialize
// request (a shell that sleeps), so Codex waits out timeoutSec for it.
func SlowMCPServer(name string, timeoutSec int) MCPServer {
	return MCPServer{Name: name, Command: "sh", Args: []string{"-c", "exec sleep 600"}, StartupTimeoutSec: timeoutSec}
}

// FailingMCPServer is a server whose command exits at once with an error.
func FailingMCPServer(name string) MCPServer {
	return MCPServer{Name: name, Command: "sh", Args: []string{"-c", "echo 'fake mcp server: failing on purpose' >&2; exit 3"}}
}

// DefaultModel is the model CodexConfig selects when Model is empty.
const DefaultModel = "gpt-5.5"

// modelMigrations silences Codex's "Meet GPT-6 Sol" upgrade prompt, which
// 0.169.0 shows at start-up for these models: the value is the model the
// prompt offers, the key the model kept.
var modelMigrations = map[string]string{"gpt-5.5": "gpt-6-sol"}

// ProviderID is the model_providers key CodexConfig writes.
const ProviderID = "fakeopenai"

// APIKeyEnv is the environment variable the provider reads its key from.
const APIKeyEnv = "OPENAI_API_KEY"

// TOML renders the config file.
func (c CodexConfig) TOML() string {
	approval := or(c.ApprovalPolicy, "on-request")
	sandbox := or(c.SandboxMode, "workspace-write")
	var b strings.Builder
	model := or(c.Model, DefaultModel)
	fmt.Fprintf(&b, "model = %s\n", strconv.Quote(model))
	fmt.Fprintf(&b, "model_provider = %s\n", strconv.Quote(ProviderID))
	fmt.Fprintf(&b, "approval_policy = %s\n", strconv.Quote(approval))
	fmt.Fprintf(&b, "sandbox_mode = %s\n", strconv.Quote(sandbox))
	b.WriteString("check_for_update_on_startup = false\n")
	b.WriteString("\n[analytics]\nenabled = false\n")
	fmt.Fprintf(&b, "\n[model_providers.%s]\n", ProviderID)
	b.WriteString("name = \"Fake OpenAI\"\n")
	fmt.Fprintf(&b, "base_url = %s\n", strconv.Quote(c.BaseURL))
	b.WriteString("wire_api = \"responses\"\n")
	fmt.Fprintf(&b, "env_key = %s\n", strconv.Quote(APIKeyEnv))
	fmt.Fprintf(&b, "request_max_retries = %d\n", c.Retries)
	fmt.Fprintf(&b, "stream_max_retries = %d\n", c.Retries)
	if c.StreamIdleTimeoutMS > 0 {
		fmt.Fprintf(&b, "stream_idle_timeout_ms = %d\n", c.StreamIdleTimeoutMS)
	}
	b.WriteString("supports_websockets = false\n")
	if c.Workdir != "" {
		fmt.Fprintf(&b, "\n[projects.%s]\ntrust_level = \"trusted\"\n", strconv.Quote(c.Workdir))
	}
	for _, m := range c.MCPServers {
		fmt.Fprintf(&b, "\n[mcp_servers.%s]\ncommand = %s\n", strconv.Quote(m.Name), strconv.Quote(m.Command))
		args := make([]string, len(m.Args))
		for i, a := range m.Args {
			args[i] = strconv.Quote(a)
		}
		fmt.Fprintf(&b, "args = [%s]\n", strings.Join(args, ", "))
		if m.StartupTimeoutSec > 0 {
			fmt.Fprintf(&b, "startup_timeout_sec = %d\n", m.StartupTimeoutSec)
		}
	}
	b.WriteString("\n[tui]\nscreen_reader_detection_done = true\nshow_tooltips = false\n")
	if to, ok := modelMigrations[model]; ok {
		fmt.Fprintf(&b, "\n[notice.model_migrations]\n%s = %s\n", strconv.Quote(model), strconv.Quote(to))
	}
	return b.String()
}

// Write writes config.toml into codexHome (created 0700 if missing).
func (c CodexConfig) Write(codexHome string) error {
	if c.BaseURL == "" {
		return fmt.Errorf("fakeopenai: CodexConfig.BaseURL is empty")
	}
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		return fmt.Errorf("fakeopenai: creating CODEX_HOME: %w", err)
	}
	path := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(path, []byte(c.TOML()), 0o600); err != nil {
		return fmt.Errorf("fakeopenai: writing %s: %w", path, err)
	}
	return nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
