@cap:auth-disabled
Feature: Authentication disabled
  A deployment may run with authentication off (METADATA_SERVICE_AUTH_ENABLED=false). Then
  a request without a token is served as the system actor, urn:li:corpuser:__datahub_system,
  which may do everything, and the service says that token authentication is off. A request
  to the metadata service that names a user in X-DataHub-Actor runs as that user, held to
  that user's privileges; the frontend never passes a client's X-DataHub-Actor on.
  With no token to ask for, what keeps another site's pages out is the Host header: a page
  whose site's name is made to resolve to the service (DNS rebinding) sends that name, and
  is refused. These scenarios need an auth-disabled deployment of the target besides the
  normal one; when the target has none, they are reported as skipped.

  Recommended beyond DataHub: with authentication off, no request makes a personal access
  token. A token made then works once authentication is on again (or on an instance that
  shares the database with authentication on), so making one takes what the operator's own
  way to the first token takes (on the reference, `catalogd token create`, run where the
  database is); DataHub makes it for anyone.

  Background:
    Given the service runs with authentication disabled

  @id:noauth-01 @must @core
  Scenario: A request without a token is served as the system actor
    When someone without a token asks who they are
    Then the answer names the system actor as the signed-in user

  @id:noauth-02 @must @core
  Scenario: A tag is created without a token
    When someone without a token creates a tag
    Then the answer is the URN of the tag
    And the tag exists with its name and description

  @id:noauth-03 @must @core
  Scenario: The service says token authentication is off
    When someone without a token reads the app configuration
    Then token authentication is reported as disabled

  @id:noauth-04 @must @core
  Scenario: A request naming a user in X-DataHub-Actor runs as that user
    Given Ann is a user
    When someone naming Ann in X-DataHub-Actor asks who they are
    Then the answer names Ann as the signed-in user

  @id:noauth-05 @must @core
  Scenario: The user named in X-DataHub-Actor is held to their own privileges
    Given Ann is a user
    When someone naming Ann in X-DataHub-Actor creates a tag
    Then Ann is rejected as unauthorized
    And the tag does not exist

  @id:noauth-06 @must @core
  Scenario: The user named in X-DataHub-Actor uses the privileges they hold
    Given Ann is a user
    And Ann is granted CREATE_TAGS
    When someone naming Ann in X-DataHub-Actor creates a tag
    Then the tag exists with its name and description

  @id:noauth-07 @must @core @cap:auth-disabled-frontend
  Scenario: The frontend does not pass a client's X-DataHub-Actor on
    Given Ann is a user
    When someone naming Ann in X-DataHub-Actor asks who they are through the frontend
    Then the answer does not name Ann as the signed-in user

  @id:noauth-08 @should @core
  Scenario Outline: X-DataHub-Actor naming <something other than a user> is refused as a bad request
    When someone names <something other than a user> in X-DataHub-Actor
    Then the answer has status 400

    Examples:
      | something other than a user |
      | a malformed URN             |
      | a tag's URN                 |

  @id:noauth-09 @should @core
  Scenario: A request naming a host the service does not answer to is refused, and no tag is made
    When someone without a token creates a tag through the metadata service in a request that names another host
    Then the request is refused as sent to a host the service does not answer to
    And the tag does not exist

  @id:noauth-10 @should @core @cap:tokens
  Scenario: With authentication off, a request without a token makes no personal access token
    Given Ann is a user
    When someone without a token creates a personal access token for Ann
    Then the request is refused and no token was made for Ann
