import { useEffect, useState } from 'react';
import { Page } from '../app/layout';

/** What the sandbox of `npm start` says about itself (`GET /sandbox`); absent in a deployment. */
interface SandboxInfo {
  chat_platform?: { demo_guild?: { name?: string } };
}

const LOGIN_ERRORS: Record<string, string> = {
  denied: 'The login was cancelled on the platform. Log in again when you are ready.',
  failed: 'The platform did not complete the login. Try again.',
};

/**
 * Login with the chat platform: a plain link to the gateway's `/auth/login`, which goes to the
 * platform's consent page and back to `/` with the session cookie. In standalone mode the sandbox
 * platform has the demo guild's owner signed in, so this one click logs in.
 */
export function LoginPage({ error }: { error: string | null }) {
  const [sandbox, setSandbox] = useState<SandboxInfo | null>(null);
  useEffect(() => {
    let live = true;
    fetch('/sandbox', { headers: { accept: 'application/json' } })
      .then(async (response) => (response.ok ? ((await response.json()) as SandboxInfo) : null))
      .then((info) => live && setSandbox(info))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return (
    <Page title="Log in">
      <div className="card narrow">
        <p>
          guildkeeper keeps snapshots of your guild's roles, channels and permissions, and puts them back
          after a raid.
        </p>
        {error && (
          <div className="problem" role="alert">
            <p className="problem-title">Not logged in</p>
            <p>{LOGIN_ERRORS[error] ?? LOGIN_ERRORS.failed}</p>
          </div>
        )}
        <p>
          <a className="button button-primary" href="/auth/login">
            Log in with Discord
          </a>
        </p>
        {sandbox?.chat_platform && (
          <p className="muted">
            Sandbox: the owner of “{sandbox.chat_platform.demo_guild?.name ?? 'the demo guild'}” is signed in
            on the sandbox platform, so this logs you in as them.
          </p>
        )}
      </div>
    </Page>
  );
}
