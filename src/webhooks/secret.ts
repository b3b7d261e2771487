// Webhook signing secrets: generated here, shown once, stored encrypted (AES-256-GCM) under the key of
// WEBHOOK_SECRET_KEY so a copy of the database alone cannot sign (decision 0022). Unlike the API secrets
// (scrypt hashes, src/clients/secrets.ts) postbook must use the secret itself to sign, so it keeps it.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Sandbox mode without WEBHOOK_SECRET_KEY: a published key, so a sandbox starts with no setup. Not secret. */
export const SANDBOX_WEBHOOK_KEY = 'postbook sandbox webhook key: public, never for production';

export interface WebhookKeyring {
  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  seal(secret: string): string;
  /** The secret, or null when the sealed text was made with another key or is damaged. */
  open(sealed: string): string | null;
}

export function webhookKeyring(keyText: string): WebhookKeyring {
  const key = createHash('sha256').update(keyText).digest();
  return {
    seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    },
    open(sealed) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== 'v1') return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1]!, 'base64url'));
        decipher.setAuthTag(Buffer.from(parts[2]!, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}

/** The keyring of a configuration: WEBHOOK_SECRET_KEY, or the published sandbox key in sandbox mode; null: webhooks off. */
export function keyringOf(config: { sandbox: boolean; webhookSecretKey: string | null }): WebhookKeyring | null {
  if (config.webhookSecretKey) return webhookKeyring(config.webhookSecretKey);
  return config.sandbox ? webhookKeyring(SANDBOX_WEBHOOK_KEY) : null;
}

/** 32 random bytes: `whsec_` and 43 base64url characters. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
