import { html } from '../html.ts';
import { type PageContext, page } from '../layout.ts';

/** `/login`: the console password. `next` is where to go after (a path of this console). */
export function loginPage(ctx: PageContext, next: string, wrong: boolean): string {
  const body = html`${wrong ? html`<p class="notice error" role="alert">Wrong password.</p>` : ''}
<form method="post" action="/login">
<input type="hidden" name="next" value="${next}">
<p><label>Password <input type="password" name="password" autocomplete="current-password" autofocus required></label></p>
<p><button type="submit" class="primary">Log in</button></p>
</form>
<p class="muted">The password is in the file CONSOLE_PASSWORD_FILE names.</p>`;
  return page(ctx, 'Log in', body);
}
