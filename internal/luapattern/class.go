package luapattern

// Character classes follow C's <ctype.h> in the "C" locale, which is what
// the lua5.2 interpreter uses: bytes >= 0x80 belong to no class.

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isAlpha(c byte) bool { return isLower(c) || isUpper(c) }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }
func isCntrl(c byte) bool { return c < 0x20 || c == 0x7f }
func isGraph(c byte) bool { return 0x21 <= c && c <= 0x7e }
func isPunct(c byte) bool { return isGraph(c) && !isAlnum(c) }
func isSpace(c byte) bool { return c == ' ' || ('\t' <= c && c <= '\r') }
func isXDigit(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// matchClass reports whether c belongs to the class named by the byte cl
// that follows a '%'. An upper-case class letter is the complement; any
// other byte (an escaped punctuation character, say) matches itself.
func matchClass(c, cl byte) bool {
	var res bool
	switch cl | 0x20 { // ASCII to-lower: only letters fold onto a class letter
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = isCntrl(c)
	case 'd':
		res = isDigit(c)
	case 'g':
		res = isGraph(c)
	case 'l':
		res = isLower(c)
	case 'p':
		res = isPunct(c)
	case 's':
		res = isSpace(c)
	case 'u':
		res = isUpper(c)
	case 'w':
		res = isAlnum(c)
	case 'x':
		res = isXDigit(c)
	case 'z': // deprecated in 5.2 but still accepted: the NUL byte
		res = c == 0
	default:
		return cl == c
	}
	if isLower(cl) {
		return res
	}
	return !res
}
