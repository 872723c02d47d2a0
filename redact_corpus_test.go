//go:build unix

package ptywright_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// corpusManPages are rendered with man -P cat for the precision corpus:
// pages about the very words the default patterns look for (passwd,
// password, token, credentials, keys) and everyday tools.
var corpusManPages = []string{
	"ls", "bash", "grep", "sed", "find", "tar", "ps", "env", "less", "man", "login", "su", "sudo",
	"passwd", "shadow", "nsswitch.conf", "useradd", "chpasswd", "crontab", "systemctl", "journalctl",
	"ssh", "ssh_config", "sshd_config", "ssh-keygen", "ssh-agent", "git", "git-config", "git-credential",
	"gitcredentials", "curl", "wget", "openssl", "gpg", "vim", "pam", "sudoers", "apt", "dpkg",
}

// redactionHits returns each span the default policy would hide in s.
func redactionHits(s string) []string {
	var out []string
	for _, sp := range ptywright.DefaultRedactor().Spans(s) {
		lo, hi := max(0, sp[0]-40), min(len(s), sp[1]+20)
		out = append(out, fmt.Sprintf("%q in %q", s[sp[0]:sp[1]], s[lo:hi]))
	}
	return out
}

// TestRedactionPrecisionCorpus: ordinary text gets no redaction at all. A
// redactor that hides "/etc/passwd: permission denied" or a man page's
// "--password=PASSWORD" teaches people to turn it off.
func TestRedactionPrecisionCorpus(t *testing.T) {
	t.Run("man pages", func(t *testing.T) {
		if _, err := exec.LookPath("man"); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("man is required in CI: scripts/install-test-deps.sh installs man-db")
			}
			t.Skip("man not installed (scripts/install-test-deps.sh installs it)")
		}
		rendered := 0
		for _, page := range corpusManPages {
			out, err := exec.Command("man", "-P", "cat", page).Output()
			if err != nil || len(out) == 0 {
				continue // Not every system has every page.
			}
			rendered++
			require.Empty(t, redactionHits(string(out)), "man %s", page)
		}
		require.GreaterOrEqual(t, rendered, 10, "too few man pages rendered for the corpus to mean anything")
	})
	t.Run("files under /etc", func(t *testing.T) {
		files := 0
		err := filepath.WalkDir("/etc", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // Unreadable directories are not the point.
			}
			if d.IsDir() && (p == "/etc/ssl/private" || p == "/etc/ssh") {
				// Private keys: secrets, rightly redacted.
				return fs.SkipDir
			}
			info, err := d.Info()
			if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			files++
			require.Empty(t, redactionHits(string(b)), p)
			return nil
		})
		require.NoError(t, err)
		require.Greater(t, files, 50)
	})
	t.Run("this repository", func(t *testing.T) {
		// The fake keys the Claude Code and Codex fixtures log in with, and
		// those typed into them to capture how they wrap a long key, are
		// secret-shaped on purpose: they (or, split over rows, their
		// pieces; in JSON, with the escaped line break after them) are
		// the only spans allowed.
		fakes := []string{
			"sk-ant-api03-ptywright-fake-key-0123456789abcdefghijklmnop-AAAA", "sk-test-0000000000000000",
			capturedAntKey, capturedProjKey, capturedGHToken, capturedBearer, capturedBearerCx,
		}
		out, err := exec.Command("git", "ls-files").Output()
		require.NoError(t, err)
		files := 0
		for _, p := range strings.Fields(string(out)) {
			if strings.HasSuffix(p, "_test.go") {
				continue // Tests plant secrets on purpose.
			}
			if strings.HasPrefix(p, "internal/golua/") {
				continue // Vendored: go-lua's README carries its CI badge token.
			}
			b, err := os.ReadFile(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue // Deleted in the worktree.
			}
			require.NoError(t, err)
			files++
			s := string(b)
			for _, sp := range ptywright.DefaultRedactor().Spans(s) {
				hit := s[sp[0]:sp[1]]
				require.True(t, slices.ContainsFunc(fakes, func(f string) bool {
					return strings.Contains(f, hit) || strings.HasPrefix(hit, f+`\n`) || strings.HasPrefix(hit, f+`\r`)
				}), "%s: %v", p, redactionHits(s[max(0, sp[0]-60):min(len(s), sp[1]+20)]))
			}
		}
		require.Greater(t, files, 100)
	})
	t.Run("shell session", func(t *testing.T) {
		// A clean environment: the test's own may hold real keys.
		s := start(t, ptywright.Options{Program: "/usr/bin/env", Args: []string{"-i", "PATH=/usr/bin:/bin", "TERM=xterm", "HOME=/tmp", "/bin/sh", "-c", `
			grep -H ^root /etc/passwd
			/etc/passwd
			cat /etc/nsswitch.conf
			ls -la /etc | head -40
			id; env | sort
			ps -o pid,comm
			echo "max_tokens: 4096, tokenizer=bpe, password reset link sent"
			echo corpus-done; sleep 5`}})
		waitFor(t, s, ptywright.ContainsText("corpus-done"))
		tr := s.Transcript(ptywright.NoRedaction())
		require.Contains(t, tr, "/etc/passwd:root:")
		require.Empty(t, redactionHits(tr))
		require.Equal(t, tr, s.Transcript(nil))
	})
	t.Run("start error", func(t *testing.T) {
		for _, prog := range []string{"/etc/passwd", "/etc", "/no/such/passwd_file"} {
			_, err := ptywright.Start(ptywright.Options{Program: prog})
			require.Error(t, err)
			require.Empty(t, redactionHits(err.Error()), err.Error())
		}
	})
}

// secretShape is one secret of the recall set: line holds it, secret is
// the part that must not survive redaction.
type secretShape struct {
	name, line, secret string
}

// recallSet builds at least one synthetic secret of every shape the
// default policy promises to hide, from rng: never a real key.
func recallSet(rng *rand.Rand) []secretShape {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	const upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	const b64url = alnum + "-_"
	rnd := func(set string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = set[rng.IntN(len(set))]
		}
		return string(b) + "" // a new string each call
	}
	// Generic values always mix letters and digits, as real ones do.
	val := func(n int) string { return rnd(alnum, n-3) + "7qZ" }
	jwtPart := func(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }
	pem := func(label string) (string, string) {
		var body strings.Builder
		for range 12 {
			body.WriteString(rnd(alnum+"+/", 64) + "\n")
		}
		b := body.String()
		return "-----BEGIN " + label + "-----\n" + b + "-----END " + label + "-----\n", b
	}
	var out []secretShape
	add := func(name, format, secret string) {
		out = append(out, secretShape{name, fmt.Sprintf(format, secret), secret})
	}
	add("anthropic api key", "ANTHROPIC_API_KEY=%s", "sk-ant-api03-"+rnd(b64url, 93)+"AA")
	add("anthropic key in prose", "using key %s for the run", "sk-ant-api03-"+rnd(b64url, 93)+"AA")
	add("anthropic admin key", "admin %s", "sk-ant-admin01-"+rnd(b64url, 93)+"AA")
	add("openai project key", "OPENAI_API_KEY: %s", "sk-proj-"+rnd(b64url, 156))
	add("openai legacy key", "key=%s;", "sk-"+rnd(alnum, 48))
	add("openai service account key", "%s", "sk-svcacct-"+rnd(b64url, 120))
	add("github classic pat", "git push https://%s@github.com/o/r", "ghp_"+rnd(alnum, 36))
	add("github oauth token", "gh auth: %s", "gho_"+rnd(alnum, 36))
	add("github app token", "installation token %s expires", "ghs_"+rnd(alnum, 36))
	add("github fine-grained pat", "%s", "github_pat_"+rnd(alnum, 22)+"_"+rnd(alnum, 59))
	add("gitlab pat", "PRIVATE-TOKEN %s", "glpat-"+rnd(b64url, 20))
	add("gitlab deploy token", "deploy %s", "gldt-"+rnd(b64url, 20))
	add("slack bot token", "SLACK=%s", "xoxb-"+rnd("0123456789", 12)+"-"+rnd("0123456789", 13)+"-"+rnd(alnum, 24))
	add("slack user token", "token %s", "xoxp-"+rnd("0123456789", 12)+"-"+rnd("0123456789", 12)+"-"+rnd(alnum, 32))
	add("aws access key id", "aws_access_key_id = %s", "AKIA"+rnd(upperDigits, 16))
	add("aws temporary key id", "(%s)", "ASIA"+rnd(upperDigits, 16))
	add("aws secret access key", "aws_secret_access_key = %s", rnd(alnum+"+/", 37)+"7qZ")
	add("gcp api key", "?key=%s&q=1", "AIza"+rnd(b64url, 35))
	add("gcp oauth access token", "gcloud: %s", "ya29."+rnd(b64url, 120))
	gcpKey, gcpBody := pem("PRIVATE KEY")
	gcpJSON := strings.ReplaceAll(gcpKey, "\n", `\n`)
	out = append(out, secretShape{"gcp service account private key", `{"type": "service_account", "private_key": "` + gcpJSON + `", "client_email": "x@p.iam.gserviceaccount.com"}`, strings.ReplaceAll(gcpBody, "\n", `\n`)})
	add("stripe live secret key", "Stripe.api_key = '%s'", "sk_live_"+rnd(alnum, 24))
	add("stripe test secret key", "%s", "sk_test_"+rnd(alnum, 24))
	add("stripe restricted key", "rk: %s", "rk_live_"+rnd(alnum, 24))
	add("stripe webhook secret", "endpoint secret %s", "whsec_"+rnd(alnum, 32))
	add("npm token", "//registry.npmjs.org/:_authToken=%s", "npm_"+rnd(alnum, 36))
	add("jwt", "id_token %s", jwtPart(`{"alg":"HS256","typ":"JWT"}`)+"."+jwtPart(fmt.Sprintf(`{"sub":"%s","iat":1700000000}`, rnd(alnum, 10)))+"."+rnd(b64url, 43))
	rsa, rsaBody := pem("RSA PRIVATE KEY")
	out = append(out, secretShape{"pem rsa private key", "$ cat id_rsa\n" + rsa + "$ ", rsaBody})
	ossh, osshBody := pem("OPENSSH PRIVATE KEY")
	out = append(out, secretShape{"pem openssh private key", ossh, osshBody})
	ec, ecBody := pem("EC PRIVATE KEY")
	out = append(out, secretShape{"pem ec private key, crlf", strings.ReplaceAll(ec, "\n", "\r\n"), strings.ReplaceAll(ecBody, "\n", "\r\n")})
	add("bearer header", "Authorization: Bearer %s", rnd(b64url, 40)+"7q")
	add("bearer curl", "curl -H 'authorization: bearer %s' https://api.example.com", rnd(b64url, 40)+"7q")
	add("basic auth header", "Authorization: Basic %s", base64.StdEncoding.EncodeToString([]byte("deploy:"+val(16))))
	add("password assignment", "password=%s", val(14))
	add("password flag", "mysql --password=%s -u root", val(14))
	add("json password", `{"user": "bob", "password": "%s"}`, val(14))
	add("token colon", "token: %s", val(20))
	add("yaml secret", "  client_secret: %s\n", val(20))
	add("env api key", "export MY_SERVICE_API_KEY=%s", val(32))
	add("url credentials", "DATABASE_URL=postgres://app:%s@db.internal:5432/app", val(16))
	add("https url credentials", "remote: https://deploy:%s@git.example.com/r.git", val(16))
	return out
}

// TestRedactionRecallSet: every secret shape is hidden, alone and mixed
// into a transcript with the others.
func TestRedactionRecallSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 25))
	for round := range 20 {
		set := recallSet(rng)
		require.GreaterOrEqual(t, len(set), 25)
		var all strings.Builder
		for _, sh := range set {
			got := ptywright.DefaultRedactor().Redact(sh.line)
			require.NotContains(t, got, sh.secret, "%s: %q", sh.name, got)
			require.Contains(t, got, "[REDACTED]", sh.name)
			all.WriteString(sh.line + "\r\n\x1b[0m")
		}
		if round == 0 {
			t.Logf("%d secret shapes", len(set))
		}
		got := ptywright.DefaultRedactor().Redact(all.String())
		for _, sh := range set {
			require.NotContains(t, got, sh.secret, sh.name)
		}
	}
}
