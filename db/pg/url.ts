/** The URL with its password replaced by ***: the only form any message shows. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.href
  } catch {
    return '(a URL that does not parse)'
  }
}

/** `text` with the URL's password (as given, and percent-decoded) masked, for messages that quote a driver or a server. */
export function maskIn(text: string, url: string): string {
  let password = ''
  try {
    password = new URL(url).password
  } catch {
    return text
  }
  if (!password) return text
  return [password, decodeURIComponent(password)].reduce((t, p) => t.split(p).join('***'), text)
}
