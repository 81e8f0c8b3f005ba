package api

import (
	"encoding/json"
	"html"
	"strings"
)

// The OAuth sign-in's pages, written without html/template: a program that
// uses it keeps every exported method of every type it links (templates
// call methods by name), which made portald 4 MB larger. Every value is
// escaped here: text with html.EscapeString, and the oAuthInfo script with
// json.Marshal, which escapes <, > and & so that no value ends the script.

// pageStyle is the pages' one style sheet. It comes after oAuthInfo's line
// in the sign-in page: the ArcGIS API for Python reads the first line of the
// page that holds braces.
const pageStyle = `<style>
body { font-family: system-ui, sans-serif; margin: 0; background: #f4f4f4; color: #151515; }
body.dark { background: #1b1b1b; color: #f4f4f4; }
main { max-width: 22rem; margin: 4rem auto; padding: 2rem; background: #fff; border-radius: 4px; box-shadow: 0 1px 4px #0003; }
body.dark main { background: #2b2b2b; }
h1 { font-size: 1.4rem; margin-top: 0; }
label { display: block; margin-top: 1rem; }
input { box-sizing: border-box; width: 100%; padding: .5rem; font-size: 1rem; }
button { margin-top: 1.5rem; width: 100%; padding: .6rem; font-size: 1rem; background: #0079c1; color: #fff; border: 0; border-radius: 2px; }
.error { color: #d83020; }
code { word-break: break-all; }
</style>`

// pageHead opens a page: its head (after extra, the sign-in's script), up to
// <main>.
func pageHead(b *strings.Builder, extra, title, bodyClass string) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(extra)
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</title>\n")
	b.WriteString(pageStyle)
	b.WriteString("\n</head>\n<body")
	if bodyClass != "" {
		b.WriteString(` class="` + bodyClass + `"`)
	}
	b.WriteString(">\n<main>\n")
}

func pageEnd(b *strings.Builder) { b.WriteString("</main>\n</body>\n</html>\n") }

func paragraph(b *strings.Builder, class, text string) {
	b.WriteString("<p")
	if class != "" {
		b.WriteString(` class="` + class + `" role="alert"`)
	}
	b.WriteString(">" + html.EscapeString(text) + "</p>\n")
}

// signInHTML is the sign-in page: oAuthInfo on the first line holding
// braces, then a form a person fills in, posted to signInURL.
func signInHTML(info signInInfo, portalName, signInURL string, dark bool) []byte {
	j, _ := json.Marshal(info) // strings only
	var b strings.Builder
	class := ""
	if dark {
		class = "dark"
	}
	pageHead(&b, "<script>\nvar oAuthInfo = "+string(j)+";\n</script>\n", "Sign in to "+portalName, class)
	b.WriteString("<h1>Sign in to " + html.EscapeString(portalName) + "</h1>\n")
	b.WriteString("<p class=\"app\">Application: <strong>" + html.EscapeString(info.ClientID) + "</strong></p>\n")
	for _, m := range info.Messages {
		paragraph(&b, "error", m)
	}
	b.WriteString(`<form method="post" action="` + html.EscapeString(signInURL) + "\">\n")
	b.WriteString(`<input type="hidden" name="oauth_state" value="` + html.EscapeString(info.OAuthState) + "\">\n")
	b.WriteString("<label for=\"username\">Username</label>\n" +
		"<input id=\"username\" name=\"username\" autocomplete=\"username\" autocapitalize=\"none\" required autofocus>\n" +
		"<label for=\"password\">Password</label>\n" +
		"<input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>\n" +
		"<button type=\"submit\" id=\"signIn\">Sign In</button>\n</form>\n")
	pageEnd(&b)
	return []byte(b.String())
}

// approvalHTML is the page of an out-of-band code: the code in the title,
// where the ArcGIS API for Python reads it.
func approvalHTML(code string) []byte {
	var b strings.Builder
	pageHead(&b, "", "SUCCESS code="+code, "")
	b.WriteString("<h1>Signed in</h1>\n<p>Copy this code into the application that asked you to sign in:</p>\n")
	b.WriteString("<p><code id=\"code\">" + html.EscapeString(code) + "</code></p>\n")
	pageEnd(&b)
	return []byte(b.String())
}

// errorPageHTML is the page of an error of an operation that answers HTML.
func errorPageHTML(message string, details []string) []byte {
	var b strings.Builder
	pageHead(&b, "", "Error", "")
	b.WriteString("<h1>Sign-in error</h1>\n")
	paragraph(&b, "error", "Error: "+message)
	for _, d := range details {
		paragraph(&b, "", d)
	}
	pageEnd(&b)
	return []byte(b.String())
}
