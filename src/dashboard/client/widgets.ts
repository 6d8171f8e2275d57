import { el } from './dom.js';
import { shortenIds, shortId } from './format.js';

/**
 * Asks before a destructive action, in the page's own dialog (a modal <dialog>: focus moves into
 * it, Escape cancels, focus returns afterwards). Resolves true only on the confirm button.
 */
export function confirmAction(question: string, detail: string, confirmLabel: string): Promise<boolean> {
  const dialog = document.getElementById('confirm-dialog');
  if (!(dialog instanceof HTMLDialogElement)) return Promise.resolve(false);
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const title = el('h2', { id: 'confirm-title', text: question });
  const cancel = el('button', { type: 'button', className: 'secondary', 'data-answer': 'cancel', text: 'Cancel' });
  const confirm = el('button', { type: 'button', className: 'danger', 'data-answer': 'confirm', text: confirmLabel });
  dialog.replaceChildren(
    title,
    el('p', { text: detail }),
    el('div', { className: 'dialog-buttons' }, [cancel, confirm]),
  );
  return new Promise((resolve) => {
    const finish = (answer: boolean): void => {
      dialog.removeEventListener('close', onClose);
      if (dialog.open) dialog.close();
      opener?.focus();
      resolve(answer);
    };
    const onClose = (): void => finish(false);
    dialog.addEventListener('close', onClose);
    cancel.addEventListener('click', () => finish(false));
    confirm.addEventListener('click', () => finish(true));
    dialog.showModal();
    cancel.focus();
  });
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission (an http page that is not localhost): select a hidden copy instead.
    const area = el('textarea', { className: 'visually-hidden', 'aria-hidden': 'true' });
    area.value = text;
    document.body.append(area);
    area.select();
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the one way to copy without the Clipboard API's permission
    const done = document.execCommand('copy');
    area.remove();
    return done;
  }
}

/** A shortened id (the whole one in its title) with a button that copies the whole id. */
export function idWithCopy(id: string, what: string): HTMLSpanElement {
  // The name starts with the word shown ("Copy", "Copied"), and says what for to screen readers only.
  const word = el('span', { text: 'Copy' });
  const button = el('button', { type: 'button', className: 'copy', 'data-focus': `copy-${id}`, title: `Copy ${id}` }, [
    word,
    el('span', { className: 'visually-hidden', text: ` ${what} ${id}` }),
  ]);
  button.addEventListener('click', (event) => {
    event.stopPropagation();
    void copyText(id).then((done) => {
      word.textContent = done ? 'Copied' : 'Copy failed';
      setTimeout(() => (word.textContent = 'Copy'), 1500);
    });
  });
  return el('span', { className: 'id' }, [el('code', { title: id, text: shortId(id), 'data-id': id }), button]);
}

/** Disables a button while an action runs. */
export async function busy<T>(button: HTMLButtonElement | null, action: () => Promise<T>): Promise<T> {
  if (button) button.disabled = true;
  try {
    return await action();
  } finally {
    if (button) button.disabled = false;
  }
}

/** A sentence of the sandbox's with its ids shortened to 8 characters; the whole sentence is its tooltip. */
export function sentence<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const short = shortenIds(text);
  return el(tag, { className, text: short, title: short === text ? undefined : text });
}
