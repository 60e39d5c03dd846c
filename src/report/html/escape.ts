/**
 * Text into HTML, safely. Everything a run records came from agents and check commands, which
 * may print anything (`</script><script>…`): every piece of it goes into the page as escaped
 * text, never as markup, and what goes inside a <script> or <style> element is kept from
 * closing it.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/**
 * JavaScript (a bundled library) for an inline <script>: `</script` would end the element and
 * `<!--` could keep a later `</script>` from ending it. `<\/` and `<\!` mean the same in a
 * string and in a regular expression without the `u` flag, which is where a minified bundle has them.
 */
export function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** CSS for an inline <style>: only `</style` could end it. */
export function inlineStyle(css: string): string {
  return css.replace(/<\/(style)/gi, '<\\/$1');
}

/** A value as JSON that is safe inside an inline <script> (no `<`, `>`, `&` or line separators unescaped). */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
